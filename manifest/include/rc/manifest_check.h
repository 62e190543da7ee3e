// What `rc-manifest verify` and rc-server check before a manifest is
// trusted: each module's fatbin hashes to the hash recorded for it, the
// recorded build ID is the modules' (rc/build_id.h), and every kernel's
// layout and every variable's size match what ptxas wrote into each cubin
// (fatbin_images.h). A module whose cubins cannot be read (no fatbin, not a
// fatbin, PTX only, compressed) leaves its kernels and variables unchecked:
// reported as such, apart from contradictions. A kernel that no cubin of a
// readable module defines is no contradiction: its host code registers it
// while its device code was compiled out (`#if __CUDA_ARCH__ >= N` with
// empty stubs under `#else`, as older suites do), and nvcc's programs run
// until they launch it. It is listed apart: launching it fails.
#ifndef RC_MANIFEST_CHECK_H
#define RC_MANIFEST_CHECK_H

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
  // Kernels no cubin of their (readable) module defines, by ID, and a line
  // each naming them ("kernel NAME (0x...): in no cubin of module N").
  std::set<uint64_t> kernelsWithoutDeviceCode;
  std::vector<std::string> notes;

  // No problem other than unchecked modules.
  bool consistent() const;
};

ManifestCheck checkManifest(const rc::manifest::Manifest &m);

} // namespace rc::tools

#endif
