// The runtime's view of every loaded manifest: kernel ID -> layout and name,
// (fatbin hash, device name) -> kernel / variable for the stub-pointer path.
#ifndef RC_RT_KERNEL_INDEX_H
#define RC_RT_KERNEL_INDEX_H

#include "rc/manifest_file.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rc::rt {

class KernelIndex {
public:
  void add(std::unique_ptr<LoadedManifest> m);
  std::vector<uint64_t> hashes() const;
  size_t manifestCount() const { return manifests_.size(); }

  const manifest::Kernel *kernel(uint64_t id) const;
  const manifest::Kernel *kernelFor(uint64_t moduleHash,
                                    const std::string &name) const;
  const manifest::Variable *variable(uint64_t id) const;
  const manifest::Variable *variableFor(uint64_t moduleHash,
                                        const std::string &name) const;

  // "demangled name (file:line)" for messages.
  static std::string describe(const manifest::Kernel *k);

private:
  using Key = std::pair<uint64_t, std::string>;
  std::vector<std::unique_ptr<LoadedManifest>> manifests_;
  std::unordered_map<uint64_t, const manifest::Kernel *> kernels_;
  std::unordered_map<uint64_t, const manifest::Variable *> vars_;
  std::map<Key, const manifest::Kernel *> kernelsByName_;
  std::map<Key, const manifest::Variable *> varsByName_;
};

// Paths of `<object>.rcm` beside every loaded object that has one, plus the
// ':'-separated RC_MANIFEST entries.
std::vector<std::string> discoverManifestPaths();
// Loads them; problems are printed once as "remote-clang: ..." warnings.
void loadDiscoveredManifests(KernelIndex &index);

} // namespace rc::rt

#endif
