// Finds the manifests of the running process: `<object>.rcm` beside the
// executable and every shared object, plus RC_MANIFEST. Runs at the first
// call that needs the device, never during registration. A manifest beside
// an object must be that object's build: what the object registered names
// the same modules (rc/build_id.h).
#include "manifests/kernel_index.h"
#include "manifests/startup_registry.h"
#include "rc/hex.h"

#include "rc/build_id.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <link.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::rt {

namespace {
bool exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

struct LoadedObject {
  std::string path;
  std::vector<std::pair<uintptr_t, uintptr_t>> segments; // [begin, end)
  bool contains(const void *p) const {
    for (const auto &[begin, end] : segments)
      if (uintptr_t(p) >= begin && uintptr_t(p) < end)
        return true;
    return false;
  }
};

int collectObject(struct dl_phdr_info *info, size_t, void *data) {
  auto *objects = static_cast<std::vector<LoadedObject> *>(data);
  LoadedObject o;
  // The executable reports an empty name: /proc/self/exe names it.
  if (info->dlpi_name && info->dlpi_name[0]) {
    o.path = info->dlpi_name;
  } else if (objects->empty()) {
    char exe[4096];
    ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
      o.path.assign(exe, size_t(n));
  }
  if (o.path.empty())
    return 0; // the vDSO
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD)
      o.segments.push_back({info->dlpi_addr + ph.p_vaddr,
                            info->dlpi_addr + ph.p_vaddr + ph.p_memsz});
  }
  objects->push_back(std::move(o));
  return 0;
}

std::vector<LoadedObject> loadedObjects() {
  std::vector<LoadedObject> objects;
  dl_iterate_phdr(collectObject, &objects);
  return objects;
}

// The loader names a library by the path it opened, often a soname link
// (libggml-cuda.so.0); the link step wrote the manifest beside the file it
// produced (libggml-cuda.so.0.25.3). Try both.
std::string manifestBeside(const std::string &object) {
  char real[4096];
  if (exists(object + ".rcm"))
    return object + ".rcm";
  if (::realpath(object.c_str(), real) && exists(std::string(real) + ".rcm"))
    return std::string(real) + ".rcm";
  return "";
}
} // namespace

std::vector<DiscoveredManifest>
discoverManifests(const std::vector<std::string> &extra) {
  std::vector<StartupRegistry::Module> registered =
      StartupRegistry::instance().modules();
  std::vector<DiscoveredManifest> out;
  std::set<std::string> seen;
  auto addIfNew = [&](DiscoveredManifest d) {
    char real[4096];
    std::string key = ::realpath(d.path.c_str(), real) ? real : d.path;
    if (d.path.empty() || seen.insert(key).second)
      out.push_back(std::move(d));
  };
  for (const LoadedObject &o : loadedObjects()) {
    DiscoveredManifest d;
    d.object = o.path;
    for (const StartupRegistry::Module &m : registered)
      if (o.contains(m.data))
        d.objectModules.push_back(m.hash);
    d.path = manifestBeside(o.path);
    if (!d.path.empty() || !d.objectModules.empty())
      addIfNew(std::move(d));
  }
  for (const std::string &path : extra)
    addIfNew({path, "", {}});
  return out;
}

std::vector<std::string>
discoverManifestPaths(const std::vector<std::string> &extra) {
  std::vector<std::string> paths;
  for (const DiscoveredManifest &d : discoverManifests(extra))
    if (!d.path.empty())
      paths.push_back(d.path);
  return paths;
}

bool isBuildOf(const LoadedManifest &m, const std::string &object,
               const std::vector<uint64_t> &objectModules, std::string *error) {
  uint64_t binary = buildId(objectModules), manifest = buildIdOf(*m.root);
  if (binary == manifest)
    return true;
  *error = "it is not the manifest of " + object + "'s build (" +
           (binary ? "the binary's device code is build " + hexId(binary)
                   : std::string("the binary registers no device code")) +
           ", the manifest describes build " + hexId(manifest) +
           "): link again, or put the manifest written with this binary "
           "beside it";
  return false;
}

void loadDiscoveredManifests(KernelIndex &index,
                             const std::vector<std::string> &extra) {
  for (const DiscoveredManifest &d : discoverManifests(extra)) {
    if (!d.objectModules.empty())
      index.addBuild(buildId(d.objectModules));
    if (d.path.empty())
      continue;
    auto m = std::make_unique<LoadedManifest>();
    std::string error;
    // The program's own manifests: their recorded hash is taken as is
    // (rc/manifest_file.h), rc-server checks its copies.
    if (!loadManifest(d.path, *m, &error, ManifestHash::TrustRecorded) ||
        (!d.object.empty() &&
         !isBuildOf(*m, d.object, d.objectModules, &error))) {
      std::fprintf(stderr,
                   "remote-clang: ignoring manifest %s: %s; kernels it "
                   "describes cannot be launched\n",
                   d.path.c_str(), error.c_str());
      continue;
    }
    index.add(std::move(m));
  }
}

} // namespace rc::rt
