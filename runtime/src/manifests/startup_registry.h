// What clang's generated start-up code registers before main: fatbins, the
// host stub of every kernel, and the host shadow of every __device__ /
// __constant__ variable. Pure bookkeeping: registration never talks to the
// server (it runs before main, possibly before RC_SERVER is even readable).
#ifndef RC_RT_STARTUP_REGISTRY_H
#define RC_RT_STARTUP_REGISTRY_H

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace rc::rt {

struct RegisteredFatbin {
  const void *data = nullptr; // the fatbin the wrapper points to
  uint64_t hash = 0;          // rc::fatbinHash, computed lazily
  bool hashed = false;
  bool valid = false; // false: not a fatbin we understand
};

struct RegisteredSymbol {
  RegisteredFatbin *module = nullptr;
  std::string deviceName; // mangled device-side name
};

class StartupRegistry {
public:
  static StartupRegistry &instance();

  // Returns the handle clang passes to the other calls (never null).
  void **registerFatbin(const void *wrapper);
  void unregisterFatbin(void **handle);
  void registerFunction(void **handle, const void *stub,
                        const char *deviceName);
  void registerVar(void **handle, const void *hostVar, const char *deviceName);

  // Lookups; the fatbin hash is computed on first use.
  bool function(const void *stub, uint64_t *moduleHash, std::string *name);
  bool variable(const void *hostVar, uint64_t *moduleHash, std::string *name);
  // The stub registered for kernel `name` of the module `moduleHash` (of
  // any module, when none has it: the linker keeps one stub of a kernel
  // several objects instantiate); null when none is.
  const void *stubFor(uint64_t moduleHash, const std::string &name);

  // Every registered fatbin we understand: where it is (inside the object
  // that registered it) and its module hash.
  struct Module {
    const void *data;
    uint64_t hash;
  };
  std::vector<Module> modules();

private:
  static uint64_t hashOf(RegisteredFatbin &fatbin); // mu_ held
  bool lookup(std::unordered_map<const void *, RegisteredSymbol> &map,
              const void *key, uint64_t *moduleHash, std::string *name);
  std::mutex mu_;
  std::vector<RegisteredFatbin *> fatbins_; // stable addresses = handles
  std::unordered_map<const void *, RegisteredSymbol> functions_;
  std::unordered_map<const void *, RegisteredSymbol> vars_;
};

} // namespace rc::rt

#endif
