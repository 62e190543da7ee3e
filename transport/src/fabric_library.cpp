#include "fabric_library.h"

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <csignal>
#include <dlfcn.h>

// Set by transport/CMakeLists.txt from the library found at configure time:
// its soname, and per function the symbol version the linker would bind
// (the library's default), which matches the structures in its headers.
#ifndef RC_LIBFABRIC_SONAME
#error "RC_LIBFABRIC_SONAME must name libfabric's soname"
#endif

namespace rc::transport::detail {

namespace {

bool sameDisposition(const struct sigaction &a, const struct sigaction &b) {
  // sa_handler and sa_sigaction share storage; SA_SIGINFO says which.
  return a.sa_handler == b.sa_handler &&
         (a.sa_flags & SA_SIGINFO) == (b.sa_flags & SA_SIGINFO);
}

// Saves the disposition of every signal; the destructor restores each one
// that changed meanwhile. Only what changed is put back: a handler the
// application installs from another thread meanwhile is not overwritten
// with an older copy.
class SignalDispositionGuard {
public:
  SignalDispositionGuard() {
    for (int s = 1; s < NSIG; ++s)
      known_[s] = sigaction(s, nullptr, &saved_[s]) == 0;
  }
  ~SignalDispositionGuard() {
    for (int s = 1; s < NSIG; ++s) {
      struct sigaction now;
      if (known_[s] && sigaction(s, nullptr, &now) == 0 &&
          !sameDisposition(now, saved_[s]))
        sigaction(s, &saved_[s], nullptr);
    }
  }
  SignalDispositionGuard(const SignalDispositionGuard &) = delete;
  SignalDispositionGuard &operator=(const SignalDispositionGuard &) = delete;

private:
  struct sigaction saved_[NSIG];
  bool known_[NSIG] = {};
};

struct FabricLibrary {
  std::string error;
  decltype(&::fi_getinfo) getinfo = nullptr;
  decltype(&::fi_freeinfo) freeinfo = nullptr;
  decltype(&::fi_dupinfo) dupinfo = nullptr;
  decltype(&::fi_fabric) fabric = nullptr;
  decltype(&::fi_strerror) strerror = nullptr;
};

template <typename Fn>
bool resolve(void *handle, const char *name, const char *version, Fn *out,
             std::string *error) {
  *out = reinterpret_cast<Fn>(dlvsym(handle, name, version));
  if (!*out && error->empty())
    *error = std::string(RC_LIBFABRIC_SONAME ": no ") + name + "@" + version;
  return *out != nullptr;
}

const FabricLibrary &fabricLibrary() {
  static const FabricLibrary lib = [] {
    FabricLibrary l;
    SignalDispositionGuard keepDispositions;
    // Never closed: providers keep threads and handlers into it.
    void *h = dlopen(RC_LIBFABRIC_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *why = dlerror();
      l.error = std::string("cannot load " RC_LIBFABRIC_SONAME ": ") +
                (why ? why : "unknown reason");
      return l;
    }
    std::string missing;
    resolve(h, "fi_getinfo", RC_FI_GETINFO_VERSION, &l.getinfo, &missing);
    resolve(h, "fi_freeinfo", RC_FI_FREEINFO_VERSION, &l.freeinfo, &missing);
    resolve(h, "fi_dupinfo", RC_FI_DUPINFO_VERSION, &l.dupinfo, &missing);
    resolve(h, "fi_fabric", RC_FI_FABRIC_VERSION, &l.fabric, &missing);
    resolve(h, "fi_strerror", RC_FI_STRERROR_VERSION, &l.strerror, &missing);
    if (!missing.empty()) {
      l = FabricLibrary();
      l.error = missing + " (built against another libfabric)";
    }
    return l;
  }();
  return lib;
}

} // namespace

bool loadFabricLibrary(std::string *error) {
  const FabricLibrary &lib = fabricLibrary();
  if (lib.getinfo)
    return true;
  if (error)
    *error = lib.error;
  return false;
}

} // namespace rc::transport::detail

using rc::transport::detail::fabricLibrary;

extern "C" {

int fi_getinfo(uint32_t version, const char *node, const char *service,
               uint64_t flags, const struct fi_info *hints,
               struct fi_info **info) {
  const auto &lib = fabricLibrary();
  return lib.getinfo ? lib.getinfo(version, node, service, flags, hints, info)
                     : -FI_ENOSYS;
}

void fi_freeinfo(struct fi_info *info) {
  if (info && fabricLibrary().freeinfo)
    fabricLibrary().freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info) {
  const auto &lib = fabricLibrary();
  return lib.dupinfo ? lib.dupinfo(info) : nullptr;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
              void *context) {
  const auto &lib = fabricLibrary();
  return lib.fabric ? lib.fabric(attr, fabric, context) : -FI_ENOSYS;
}

const char *fi_strerror(int errnum) {
  const auto &lib = fabricLibrary();
  return lib.strerror ? lib.strerror(errnum) : "libfabric is not loaded";
}

} // extern "C"
