// libFuzzer harness: the `.rc_manifest` section of an object or binary as
// rc-link reads it at link time: concatenated fragment frames, possibly
// with zero padding between them, each a manifest (tools/common/fragments).
#include "common/fragments.h"
#include "rc/manifest_file.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::vector<uint8_t>> fragments;
  std::string error;
  if (!rc::tools::splitFragments(data, size, fragments, &error))
    return 0;
  // Every fragment it returns is a verified manifest that frames back.
  for (const std::vector<uint8_t> &f : fragments)
    if (!rc::verifyManifestBytes(f.data(), f.size(), nullptr) ||
        rc::tools::frameFragment(f).size() <= f.size())
      std::abort();
  return 0;
}
