#include "manifests/startup_registry.h"

#include "rc/fatbin.h"

#include <cstring>

namespace rc::rt {

namespace {
// Layout of the argument of __cudaRegisterFatBinary (clang's
// __cuda_fatbin_wrapper).
struct FatbinWrapper {
  int magic;
  int version;
  const void *data;
  void *unused;
};
} // namespace

StartupRegistry &StartupRegistry::instance() {
  // Leaked on purpose: clang's module destructors call
  // __cudaUnregisterFatBinary during exit, after static destructors may run.
  static StartupRegistry *r = new StartupRegistry;
  return *r;
}

void **StartupRegistry::registerFatbin(const void *wrapper) {
  auto *fb = new RegisteredFatbin;
  FatbinWrapper w{};
  if (wrapper)
    std::memcpy(&w, wrapper, sizeof w);
  if (uint32_t(w.magic) == kFatbinWrapperMagic && w.data) {
    fb->data = w.data;
    fb->valid = fatbinSize(w.data) != 0;
  }
  std::lock_guard<std::mutex> lock(mu_);
  fatbins_.push_back(fb);
  // The handle is a pointer to our record, as void** like cudart's.
  return reinterpret_cast<void **>(fb);
}

void StartupRegistry::unregisterFatbin(void **) {
  // Keep records alive: stubs may still be looked up by late destructors.
}

void StartupRegistry::registerFunction(void **handle, const void *stub,
                                       const char *deviceName) {
  std::lock_guard<std::mutex> lock(mu_);
  functions_[stub] = {reinterpret_cast<RegisteredFatbin *>(handle),
                      deviceName ? deviceName : ""};
}

void StartupRegistry::registerVar(void **handle, const void *hostVar,
                                  const char *deviceName) {
  std::lock_guard<std::mutex> lock(mu_);
  vars_[hostVar] = {reinterpret_cast<RegisteredFatbin *>(handle),
                    deviceName ? deviceName : ""};
}

const void *StartupRegistry::stubFor(uint64_t moduleHash,
                                     const std::string &name) {
  std::lock_guard<std::mutex> lock(mu_);
  const void *anyModule = nullptr;
  for (auto &[stub, symbol] : functions_) {
    if (symbol.deviceName != name)
      continue;
    if (symbol.module && hashOf(*symbol.module) == moduleHash)
      return stub;
    anyModule = stub;
  }
  return anyModule;
}

bool StartupRegistry::lookup(
    std::unordered_map<const void *, RegisteredSymbol> &map, const void *key,
    uint64_t *moduleHash, std::string *name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map.find(key);
  if (it == map.end() || !it->second.module || !it->second.module->valid)
    return false;
  *moduleHash = hashOf(*it->second.module);
  *name = it->second.deviceName;
  return true;
}

uint64_t StartupRegistry::hashOf(RegisteredFatbin &fatbin) {
  if (!fatbin.hashed) {
    uint64_t size = fatbinSize(fatbin.data);
    if (!readRemoteStub(fatbin.data, size, &fatbin.hash))
      fatbin.hash = fatbinHash(fatbin.data, size);
    fatbin.hashed = true;
  }
  return fatbin.hash;
}

std::vector<StartupRegistry::Module> StartupRegistry::modules() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Module> out;
  for (RegisteredFatbin *fb : fatbins_)
    if (fb->valid)
      out.push_back({fb->data, hashOf(*fb)});
  return out;
}

bool StartupRegistry::function(const void *stub, uint64_t *moduleHash,
                               std::string *name) {
  return lookup(functions_, stub, moduleHash, name);
}

bool StartupRegistry::variable(const void *hostVar, uint64_t *moduleHash,
                               std::string *name) {
  return lookup(vars_, hostVar, moduleHash, name);
}

} // namespace rc::rt
