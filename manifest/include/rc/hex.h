// How remote-clang prints a 64-bit number in a message or a log line, so that
// one value always reads the same way wherever it is printed:
//
//   hexId:      identities (kernel and variable IDs, manifest, build and
//               fatbin hashes) as all 16 digits, so an ID found in one log
//               can be searched for in another, and in `rc-manifest` output;
//   hexAddress: device addresses and handles, without leading zeros, as
//               CUDA tools print pointers;
//   hexBytes:   a byte string (a key file's secret, a worker's ticket) as
//               two lowercase digits a byte, which parseHexBytes reads back.
#ifndef RC_HEX_H
#define RC_HEX_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

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

inline std::string hexBytes(const uint8_t *data, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * size);
  for (size_t i = 0; i < size; ++i) {
    text += kDigits[data[i] >> 4];
    text += kDigits[data[i] & 15];
  }
  return text;
}

// Two hex digits (either case) a byte; false on an odd length or anything
// that is not a hex digit.
inline bool parseHexBytes(const std::string &hex, std::vector<uint8_t> *out) {
  auto value = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  if (hex.size() % 2)
    return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = value(hex[i]), lo = value(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    out->push_back(uint8_t(hi << 4 | lo));
  }
  return true;
}

} // namespace rc

#endif
