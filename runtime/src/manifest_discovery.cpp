// Finds the manifests of the running process: `<object>.rcm` beside the
// executable and every shared object, plus RC_MANIFEST. Runs at the first
// call that needs the device, never during registration.
#include "kernel_index.h"

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

int collectObject(struct dl_phdr_info *info, size_t, void *data) {
  auto *paths = static_cast<std::vector<std::string> *>(data);
  // The executable reports an empty name; it is added via /proc/self/exe.
  if (info->dlpi_name && info->dlpi_name[0])
    paths->push_back(info->dlpi_name);
  return 0;
}
} // namespace

std::vector<std::string> discoverManifestPaths() {
  std::vector<std::string> objects;
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0)
    objects.emplace_back(exe, size_t(n));
  dl_iterate_phdr(collectObject, &objects);

  std::vector<std::string> out;
  std::set<std::string> seen;
  auto addIfNew = [&](const std::string &p) {
    char real[4096];
    std::string key = ::realpath(p.c_str(), real) ? real : p;
    if (seen.insert(key).second)
      out.push_back(p);
  };
  // The loader names a library by the path it opened, often a soname link
  // (libggml-cuda.so.0); the link step wrote the manifest beside the file it
  // produced (libggml-cuda.so.0.25.3). Try both.
  for (const std::string &o : objects) {
    char real[4096];
    if (exists(o + ".rcm"))
      addIfNew(o + ".rcm");
    else if (::realpath(o.c_str(), real) && exists(std::string(real) + ".rcm"))
      addIfNew(std::string(real) + ".rcm");
  }
  if (const char *env = std::getenv("RC_MANIFEST")) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos)
        end = list.size();
      if (end > start)
        addIfNew(list.substr(start, end - start));
      start = end + 1;
    }
  }
  return out;
}

void loadDiscoveredManifests(KernelIndex &index) {
  for (const std::string &path : discoverManifestPaths()) {
    auto m = std::make_unique<LoadedManifest>();
    std::string error;
    if (!loadManifest(path, *m, &error)) {
      std::fprintf(stderr,
                   "remote-clang: ignoring manifest %s: %s; kernels it "
                   "describes cannot be launched\n",
                   path.c_str(), error.c_str());
      continue;
    }
    index.add(std::move(m));
  }
}

} // namespace rc::rt
