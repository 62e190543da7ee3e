// How remote-clang prints a 64-bit number in a message or a log line, so that
// one value always reads the same way wherever it is printed:
//
//   hexId:      identities (kernel and variable IDs, manifest, build and
//               fatbin hashes) as all 16 digits, so an ID found in one log
//               can be searched for in another, and in `rc-manifest` output;
//   hexAddress: device addresses and handles, without leading zeros, as
//               CUDA tools print pointers.
#ifndef RC_HEX_H
#define RC_HEX_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace rc {

inline std::string hexId(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)id);
  return buf;
}

inline std::string hexAddress(uint64_t address) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)address);
  return buf;
}

} // namespace rc

#endif
