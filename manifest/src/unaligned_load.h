// Reading a little-endian field of a file format (ELF, fatbin) at any byte
// offset: the bytes of an input need not be aligned for T, so they are
// copied out instead of dereferenced (which would be undefined behaviour
// that UBSan reports). The caller checks that sizeof(T) bytes are there.
#ifndef RC_UNALIGNED_LOAD_H
#define RC_UNALIGNED_LOAD_H

#include <cstdint>
#include <cstring>

namespace rc::tools {

template <typename T> T loadUnaligned(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

} // namespace rc::tools

#endif
