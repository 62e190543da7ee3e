#include "rc/content_hash.h"

#define XXH_INLINE_ALL // the library compiled in here: nothing to link
#include <xxhash.h>

#include <algorithm>
#include <cstdio>

namespace rc {

std::string ContentHash::hex() const {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)high,
                (unsigned long long)low);
  return buf;
}

bool ContentHash::parse(const std::string &text, ContentHash *out) {
  if (text.size() != 32 ||
      text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return false;
  out->high = std::stoull(text.substr(0, 16), nullptr, 16);
  out->low = std::stoull(text.substr(16), nullptr, 16);
  return true;
}

ContentHash hashContent(const void *data, size_t size) {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return {h.low64, h.high64};
}

std::vector<ContentHash> hashChunks(const uint8_t *data, uint64_t size,
                                    uint64_t chunkBytes) {
  std::vector<ContentHash> hashes;
  for (uint64_t off = 0; off < size; off += chunkBytes)
    hashes.push_back(hashContent(data + off, std::min(chunkBytes, size - off)));
  return hashes;
}

} // namespace rc
