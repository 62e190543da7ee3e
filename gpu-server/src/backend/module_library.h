// Driver-API modules loaded at a client's request (docs/driver-api.md),
// shared by content: sessions that load the same image share one loaded
// copy, released with the last of them. The backend says how an image is
// loaded and how a kernel's layout is read; this class counts who holds
// what.
#ifndef RC_SERVER_MODULE_LIBRARY_H
#define RC_SERVER_MODULE_LIBRARY_H

#include "rc/server/backend.h"

#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace rc::server {

class ModuleLibrary {
public:
  using Loader = std::function<OpStatus(const std::vector<uint8_t> &image,
                                        NativeHandle *module)>;
  using Unloader = std::function<void(NativeHandle module)>;
  ModuleLibrary(Loader load, Unloader unload)
      : load_(std::move(load)), unload_(std::move(unload)) {}
  ~ModuleLibrary();

  // The loaded module of these bytes, loading them if no session holds
  // them; each success must be released once.
  OpStatus acquire(const uint8_t *image, size_t size, NativeHandle *module);
  void release(NativeHandle module);
  size_t loaded() const;

private:
  struct Entry {
    std::vector<uint8_t> image; // compared on a hash match: no collisions
    NativeHandle module = 0;
    uint32_t holders = 0;
  };
  Loader load_;
  Unloader unload_;
  mutable std::mutex mutex_;
  std::multimap<uint64_t, Entry> byHash_;
};

} // namespace rc::server

#endif
