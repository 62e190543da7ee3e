#include "rc/server/session_symbols.h"

#include "rc/hex.h"

#include <unordered_set>

namespace rc::server {

SessionSymbols::SessionSymbols(const Registry &registry,
                               std::vector<uint32_t> manifests)
    : registry_(&registry), manifests_(std::move(manifests)) {}

template <class Info, class Lookup>
const Info *SessionSymbols::resolve(uint64_t id, const char *what,
                                    Lookup lookup, std::string *why) const {
  const Info *found = nullptr;
  uint32_t foundIn = 0;
  for (uint32_t m : manifests_) {
    const Info *def = lookup(m, id);
    if (!def || def == found)
      continue;
    if (found) {
      if (why)
        *why = std::string(what) + " id " + hexId(id) + " (" + def->name +
               ") is defined differently by two manifests of this client, " +
               registry_->manifest(foundIn).path + " and " +
               registry_->manifest(m).path +
               ": the wire names it by ID only, so neither is used";
      return nullptr;
    }
    found = def;
    foundIn = m;
  }
  if (!found && why)
    *why = "unknown " + std::string(what) + " id " + hexId(id) +
           " (not in the manifests this client announced)";
  return found;
}

const KernelInfo *SessionSymbols::kernel(uint64_t id, std::string *why) const {
  const KernelInfo *k = resolve<KernelInfo>(
      id, "kernel",
      [this](uint32_t m, uint64_t i) { return registry_->kernelIn(m, i); },
      why);
  // As with nvcc's programs: registered by the host, absent from the device
  // code (compiled out under `#if __CUDA_ARCH__`), an invalid function.
  if (k && !k->hasDeviceCode) {
    if (why)
      *why = "kernel " + k->demangled +
             " has no device code: no cubin of its module defines it";
    return nullptr;
  }
  return k;
}

const VariableInfo *SessionSymbols::variable(uint64_t id,
                                             std::string *why) const {
  return resolve<VariableInfo>(
      id, "variable",
      [this](uint32_t m, uint64_t i) { return registry_->variableIn(m, i); },
      why);
}

void SessionSymbols::forEachKernel(
    const std::function<void(const KernelInfo &)> &fn) const {
  std::unordered_set<uint64_t> seen;
  for (uint32_t m : manifests_)
    for (const auto &[id, def] : registry_->kernelsOf(m))
      if (seen.insert(id).second)
        fn(*def);
}

} // namespace rc::server
