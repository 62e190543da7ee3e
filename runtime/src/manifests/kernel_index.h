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
  // Build identities (rc/build_id.h) of the process's objects that
  // registered device code, for Hello.
  void addBuild(uint64_t id) { builds_.push_back(id); }
  const std::vector<uint64_t> &builds() const { return builds_; }

  const manifest::Kernel *kernel(uint64_t id) const;
  // The fatbin hash of the module kernel `id` is in (0: unknown).
  uint64_t moduleHashOf(uint64_t id) const;
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
  std::vector<uint64_t> builds_;
  std::unordered_map<uint64_t, const manifest::Kernel *> kernels_;
  std::unordered_map<uint64_t, uint64_t> kernelModules_; // id -> module hash
  std::unordered_map<uint64_t, const manifest::Variable *> vars_;
  std::map<Key, const manifest::Kernel *> kernelsByName_;
  std::map<Key, const manifest::Variable *> varsByName_;
};

// A manifest to load, and the object it is beside with the module hashes
// that object registered. RC_MANIFEST entries name no object; an object
// that registered modules but has no manifest beside it has no path.
struct DiscoveredManifest {
  std::string path;
  std::string object;
  std::vector<uint64_t> objectModules;
};
// `<object>.rcm` beside every loaded object that has one, then the
// `extra` (RC_MANIFEST's entries, Options::manifests).
std::vector<DiscoveredManifest>
discoverManifests(const std::vector<std::string> &extra = {});
std::vector<std::string>
discoverManifestPaths(const std::vector<std::string> &extra = {});

// Whether `m` is the manifest of the build whose object registered
// `objectModules`; if not, *error says so, naming the object and both
// builds.
bool isBuildOf(const LoadedManifest &m, const std::string &object,
               const std::vector<uint64_t> &objectModules, std::string *error);

// Loads them (a manifest beside an object only if it is that object's
// build) and records every object's build; problems are printed once as
// "remote-clang: ..." warnings.
void loadDiscoveredManifests(KernelIndex &index,
                             const std::vector<std::string> &extra);

} // namespace rc::rt

#endif
