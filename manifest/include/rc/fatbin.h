// Minimal view of a CUDA fatbin container: enough to know its size and to
// compute the hash that ties a registered fatbin (runtime) to its manifest
// module (rc-link, rc-server). Header-only so the runtime needs no library.
#ifndef RC_FATBIN_H
#define RC_FATBIN_H

#include "rc/kernel_id.h"

#include <cstdint>
#include <cstring>

namespace rc {

constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr uint32_t kFatbinWrapperMagic = 0x466243B1u; // __cudaRegisterFatBinary arg

struct FatbinHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t headerSize;
  uint64_t fatSize; // bytes after the header
};

// Total size of the fatbin starting at `data`, or 0 if it is not one.
inline uint64_t fatbinSize(const void *data, uint64_t available = UINT64_MAX) {
  if (!data || available < sizeof(FatbinHeader))
    return 0;
  FatbinHeader h;
  std::memcpy(&h, data, sizeof h);
  if (h.magic != kFatbinMagic || h.headerSize < sizeof(FatbinHeader))
    return 0;
  uint64_t total = uint64_t(h.headerSize) + h.fatSize;
  return total <= available ? total : 0;
}

// Hash of exactly the fatbin's bytes (header + images, no section padding).
inline uint64_t fatbinHash(const void *data, uint64_t size) {
  return fnv1a64(data, size);
}

} // namespace rc

#endif
