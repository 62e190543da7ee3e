// Driver-API modules the build never saw (docs/driver-api.md): images the
// client loads at run time (cuModuleLoadData, NVRTC's output), their
// kernels, and launches of them. The layout of a kernel's parameters comes
// from the image, but not their types: a module kernel's pointer arguments
// cannot be checked like a manifest kernel's. What keeps a session's
// kernels out of others' memory is its own context (each session's
// allocations are mapped only there).
#include "executor/executor.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

namespace rc::server {

namespace {

OpStatus fail(int code, std::string detail) {
  return OpStatus::fail(code, std::move(detail));
}

} // namespace

OpStatus Executor::handle(const wire::ModuleLoad &c, Answer &) {
  if (c.module_id() == 0 || modules_.count(c.module_id()))
    return fail(kErrInvalidValue,
                "module handle " + hexAddress(c.module_id()) +
                    (c.module_id() ? " is already in use" : " is null"));
  if (!c.image() || c.image()->size() == 0)
    return fail(kErrInvalidValue, "an empty module image");
  NativeHandle native = 0;
  OpStatus st =
      backend_.loadModule(c.image()->data(), c.image()->size(), &native);
  if (st.ok())
    modules_[c.module_id()] = native;
  return st;
}

OpStatus Executor::handle(const wire::ModuleUnload &c, Answer &) {
  auto m = modules_.find(c.module_id());
  if (m == modules_.end())
    return fail(kErrInvalidResourceHandle,
                "module handle " + hexAddress(c.module_id()) +
                    " names no module of this session");
  for (auto k = moduleKernels_.begin(); k != moduleKernels_.end();)
    k = k->second.module == c.module_id() ? moduleKernels_.erase(k)
                                          : std::next(k);
  // Kernels already launched keep running: the driver holds the module's
  // code in each context that used it until that work is done.
  backend_.releaseModule(m->second);
  modules_.erase(m);
  return OpStatus::success();
}

OpStatus Executor::handle(const wire::ModuleFunction &c, Answer &a) {
  auto m = modules_.find(c.module_id());
  if (m == modules_.end())
    return fail(kErrInvalidResourceHandle,
                "module handle " + hexAddress(c.module_id()) +
                    " names no module of this session");
  if (c.function() == 0 || moduleKernels_.count(c.function()))
    return fail(kErrInvalidValue, "function handle " +
                                      hexAddress(c.function()) +
                                      " is null or already in use");
  std::string name = c.name() ? c.name()->str() : "";
  if (name.empty())
    return fail(kErrInvalidValue, "no kernel name");
  ModuleKernel mk;
  mk.module = c.module_id();
  OpStatus st = backend_.moduleKernel(m->second, name, &mk.kernel);
  if (!st.ok())
    return st;
  mk.kernel.id = c.function();
  // The layout, for the client to pack arguments by.
  std::vector<uint32_t> layout;
  for (const ParamInfo &p : mk.kernel.params) {
    layout.push_back(p.offset);
    layout.push_back(p.size);
  }
  a.result.payload = reply_->CreateVector(
      reinterpret_cast<const uint8_t *>(layout.data()), layout.size() * 4);
  a.give();
  moduleKernels_[c.function()] = std::move(mk);
  return st;
}

// The attributes the backend read when the kernel was looked up.
OpStatus Executor::handle(const wire::FunctionAttributes &c, Answer &a) {
  auto f = moduleKernels_.find(c.function());
  if (f == moduleKernels_.end())
    return fail(kErrInvalidResourceHandle,
                "function handle " + hexAddress(c.function()) +
                    " names no kernel of this session's modules");
  const KernelAttrs &k = f->second.kernel.attrs;
  const int32_t values[] = {k.numRegs,           k.maxThreadsPerBlock,
                            k.sharedSizeBytes,   k.constSizeBytes,
                            k.localSizeBytes,    k.ptxVersion,
                            k.binaryVersion,     k.maxDynamicSharedSizeBytes,
                            k.preferredCarveout, k.cacheModeCA};
  a.result.payload = reply_->CreateVector(
      reinterpret_cast<const uint8_t *>(values), sizeof values);
  a.give();
  return OpStatus::success();
}

OpStatus Executor::handle(const wire::LaunchFunction &c, Answer &a) {
  auto f = moduleKernels_.find(c.function());
  if (f == moduleKernels_.end())
    return fail(kErrInvalidResourceHandle,
                "function handle " + hexAddress(c.function()) +
                    " names no kernel of this session's modules");
  const KernelInfo &k = f->second.kernel;
  *a.what = "cuLaunchKernel of " + k.name;
  LaunchConfig cfg;
  OpStatus st =
      launchConfig(c.grid(), c.block(), c.shared_mem(), c.stream(), &cfg);
  if (!st.ok())
    return st;
  if (!(st = stageArgs(c.args(), k.argsSize)).ok())
    return st;
  lastLaunch_ = "kernel " + k.name + " of a module loaded at run time";
  return ctx_->launch(k, cfg, argBuffer_.data());
}

} // namespace rc::server
