#include "rc/build_id.h"

#include "rc/kernel_id.h"

#include <algorithm>

namespace rc {

uint64_t buildId(std::vector<uint64_t> moduleHashes) {
  if (moduleHashes.empty())
    return 0;
  std::sort(moduleHashes.begin(), moduleHashes.end());
  moduleHashes.erase(std::unique(moduleHashes.begin(), moduleHashes.end()),
                     moduleHashes.end());
  uint64_t id = kFnvOffset;
  for (uint64_t h : moduleHashes)
    for (int byte = 0; byte < 8; ++byte) {
      uint8_t b = uint8_t(h >> (8 * byte));
      id = fnv1a64(&b, 1, id);
    }
  return id;
}

uint64_t buildIdOf(const manifest::Manifest &m) {
  std::vector<uint64_t> hashes;
  if (m.modules())
    for (const manifest::Module *mod : *m.modules())
      hashes.push_back(mod->fatbin_hash());
  return buildId(std::move(hashes));
}

} // namespace rc
