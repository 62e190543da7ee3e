#include "fragments.h"

#include "rc/launch_abi.h"
#include "rc/manifest_file.h"

#include <cstring>

namespace rc::tools {

static constexpr size_t kMagicLen = sizeof(RC_FRAGMENT_MAGIC) - 1;

std::vector<uint8_t> frameFragment(const std::vector<uint8_t> &manifest) {
  const char *magic = RC_FRAGMENT_MAGIC;
  std::vector<uint8_t> out(magic, magic + kMagicLen);
  uint64_t len = manifest.size();
  for (int i = 0; i < 8; ++i)
    out.push_back(uint8_t(len >> (8 * i)));
  out.insert(out.end(), manifest.begin(), manifest.end());
  return out;
}

bool splitFragments(const uint8_t *data, size_t size,
                    std::vector<std::vector<uint8_t>> &out,
                    std::string *error) {
  size_t pos = 0;
  while (pos < size) {
    if (data[pos] == 0) { // alignment padding between objects' sections
      ++pos;
      continue;
    }
    if (size - pos < kMagicLen + 8 ||
        std::memcmp(data + pos, RC_FRAGMENT_MAGIC, kMagicLen) != 0) {
      if (error)
        *error = "bad fragment frame at offset " + std::to_string(pos) +
                 " (expected " RC_FRAGMENT_MAGIC ")";
      return false;
    }
    uint64_t len = 0;
    for (int i = 0; i < 8; ++i)
      len |= uint64_t(data[pos + kMagicLen + i]) << (8 * i);
    pos += kMagicLen + 8;
    if (len > size - pos) {
      if (error)
        *error = "fragment at offset " + std::to_string(pos) +
                 " is truncated (" + std::to_string(len) + " bytes declared)";
      return false;
    }
    // Copy: the section data need not be aligned for flatbuffers.
    std::vector<uint8_t> frag(data + pos, data + pos + len);
    std::string why;
    if (!verifyManifestBytes(frag.data(), frag.size(), &why)) {
      if (error)
        *error = "fragment " + std::to_string(out.size()) + ": " + why;
      return false;
    }
    out.push_back(std::move(frag));
    pos += len;
  }
  return true;
}

} // namespace rc::tools
