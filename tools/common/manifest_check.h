// What `rc-manifest verify` and rc-server check before a manifest is
// trusted: each module's fatbin hashes to the hash recorded for it, the
// recorded build ID is the modules' (rc/build_id.h), and every kernel's
// layout and every variable's size match what ptxas wrote into each cubin
// (fatbin_images.h). A module whose cubins cannot be read (no fatbin, not a
// fatbin, PTX only, compressed) leaves its kernels and variables unchecked:
// reported as such, apart from contradictions.
#ifndef RC_TOOLS_MANIFEST_CHECK_H
#define RC_TOOLS_MANIFEST_CHECK_H

#include "manifest_generated.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace rc::tools {

struct ManifestProblem {
  // "kernel NAME (0x...): WHAT", "variable NAME (0x...): WHAT",
  // "module N (SOURCE): WHAT" or "build_id ...": no file name.
  std::string text;
  // Only that a module's cubins could not be read: nothing contradicts.
  bool unchecked = false;
};

struct ManifestCheck {
  std::vector<ManifestProblem> problems; // in manifest order
  unsigned kernelsChecked = 0;
  unsigned variables = 0;
  unsigned droppedVariables = 0; // internal ones the compiler left out
  std::set<uint32_t> archs;      // of the cubins that held a kernel

  // No problem other than unchecked modules.
  bool consistent() const;
};

ManifestCheck checkManifest(const rc::manifest::Manifest &m);

} // namespace rc::tools

#endif
