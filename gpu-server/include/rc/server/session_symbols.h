// The kernels and variables one session may name: the registry seen
// through the manifests its client announced in Hello. Every launch,
// variable access and symbol copy of the session resolves its ID here, so
// a client only ever reaches its own programs' definitions, whatever other
// programs with the same kernel or variable names the server also holds.
#ifndef RC_SERVER_SESSION_SYMBOLS_H
#define RC_SERVER_SESSION_SYMBOLS_H

#include "rc/server/registry.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rc::server {

class SessionSymbols {
public:
  // `manifests`: indices into `registry` of the client's manifests.
  SessionSymbols(const Registry &registry, std::vector<uint32_t> manifests);

  // The session's definition of kernel / variable `id`, or null with *why
  // saying why not: no announced manifest has it, or two of them define it
  // differently (two of one process's binaries with the same symbol: the
  // wire names only the ID, so neither is picked).
  const KernelInfo *kernel(uint64_t id, std::string *why) const;
  const VariableInfo *variable(uint64_t id, std::string *why) const;

  // Each kernel the session can name, once (its first manifest's
  // definition where two differ).
  void forEachKernel(const std::function<void(const KernelInfo &)> &fn) const;

  const std::vector<uint32_t> &manifests() const { return manifests_; }

private:
  template <class Info, class Lookup>
  const Info *resolve(uint64_t id, const char *what, Lookup lookup,
                      std::string *why) const;

  const Registry *registry_;
  std::vector<uint32_t> manifests_;
};

} // namespace rc::server

#endif
