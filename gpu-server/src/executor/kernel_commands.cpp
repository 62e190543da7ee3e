// Kernel launches (kernel_commands.h). A manifest kernel's launch is
// checked by its manifest's layout: every pointer parameter (and pointer
// field) must lie inside the session's memory.
//
// Driver-API modules the build never saw (docs/driver-api.md): images the
// client loads at run time (cuModuleLoadData, NVRTC's output), their
// kernels, and launches of them. The layout of a kernel's parameters comes
// from the image, but not their types: a module kernel's pointer arguments
// cannot be checked like a manifest kernel's. What keeps a session's
// kernels out of others' memory is its own context (each session's
// allocations are mapped only there).
#include "executor/kernel_commands.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <cuda.h>

#include <cstring>

namespace rc::server {

namespace {

// Only the attributes cudaFuncSetAttribute can set.
bool settable(int attribute) {
  return attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
         attribute == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT ||
         attribute == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH ||
         attribute == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED ||
         attribute == CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
}

} // namespace

void KernelCommands::releaseModules() {
  for (auto &kv : modules_)
    devices_.backend().releaseModule(kv.second);
}

const KernelInfo *KernelCommands::sessionKernel(uint64_t id,
                                                std::string *why) const {
  return names_.kernel(id, why);
}

const KernelInfo *KernelCommands::moduleKernel(uint64_t function,
                                               std::string *why) const {
  auto f = moduleKernels_.find(function);
  if (f != moduleKernels_.end())
    return &f->second.kernel;
  *why = "function handle " + hexAddress(function) +
         " names no kernel of this session's modules";
  return nullptr;
}

OpStatus KernelCommands::handle(const wire::FuncSetAttribute &c,
                                CommandAnswer &a) {
  std::string why;
  const KernelInfo *k = sessionKernel(c.kernel_id(), &why);
  if (!k)
    return OpStatus::fail(kErrInvalidDeviceFunction, why);
  *a.what += " (" + k->demangled + ")";
  if (!settable(c.attribute()))
    return OpStatus::fail(kErrInvalidValue, "attribute " +
                                                std::to_string(c.attribute()) +
                                                " cannot be set");
  return devices_.ctx()->setKernelAttribute(*k, c.attribute(), c.value());
}

// The launch configuration of a Launch or LaunchFunction, checked against
// the limits the driver enforces (from the device's attributes, so the host
// test device rejects what a GPU would).
OpStatus
KernelCommands::launchConfig(const flatbuffers::Vector<uint32_t> *grid,
                             const flatbuffers::Vector<uint32_t> *block,
                             uint32_t sharedMem, uint64_t stream,
                             LaunchConfig *out) {
  LaunchConfig &cfg = *out;
  if (!grid || grid->size() != 3 || !block || block->size() != 3)
    return OpStatus::fail(kErrInvalidConfiguration,
                          "grid and block need 3 dimensions");
  OpStatus st = devices_.bindStream(stream, &cfg.stream);
  if (!st.ok())
    return st;
  const auto &attr = devices_.boundDevice().attributes;
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    cfg.grid[i] = grid->Get(i);
    cfg.block[i] = block->Get(i);
    if (cfg.grid[i] == 0 || cfg.block[i] == 0)
      return OpStatus::fail(kErrInvalidConfiguration,
                            "grid or block dimension of size 0");
    threads *= cfg.block[i];
  }
  auto attrOr = [&](CUdevice_attribute a, int32_t dflt) {
    size_t i = size_t(a);
    return i < attr.size() && attr[i] > 0 ? uint64_t(attr[i]) : uint64_t(dflt);
  };
  const uint64_t maxThreads =
      attrOr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
  if (threads > maxThreads)
    return OpStatus::fail(kErrInvalidConfiguration,
                          std::to_string(threads) +
                              " threads per block exceed " +
                              std::to_string(maxThreads));
  for (int i = 0; i < 3; ++i) {
    auto blockAttr =
        CUdevice_attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i);
    auto gridAttr = CUdevice_attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i);
    if (cfg.block[i] > attrOr(blockAttr, 1024) ||
        cfg.grid[i] > attrOr(gridAttr, 65535))
      return OpStatus::fail(
          kErrInvalidConfiguration,
          "grid (" + std::to_string(cfg.grid[0]) + "," +
              std::to_string(cfg.grid[1]) + "," + std::to_string(cfg.grid[2]) +
              ") block (" + std::to_string(cfg.block[0]) + "," +
              std::to_string(cfg.block[1]) + "," +
              std::to_string(cfg.block[2]) + ") exceeds the device's limits");
  }
  cfg.sharedMem = sharedMem;
  const uint64_t maxShared =
      attrOr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 49152);
  if (cfg.sharedMem > maxShared)
    return OpStatus::fail(kErrInvalidValue,
                          std::to_string(cfg.sharedMem) +
                              " bytes of dynamic shared memory exceed " +
                              std::to_string(maxShared));
  return OpStatus::success();
}

// A launch's arguments, which must be exactly the kernel's size, copied to
// aligned storage (argBuffer_): the driver reads parameters in place, and a
// flatbuffer vector is only 4-byte aligned.
OpStatus KernelCommands::stageArgs(const flatbuffers::Vector<uint8_t> *args,
                                   uint32_t argsSize) {
  size_t got = args ? args->size() : 0;
  if (got != argsSize)
    return OpStatus::fail(kErrInvalidValue,
                          std::to_string(got) +
                              " bytes of arguments, the kernel takes " +
                              std::to_string(argsSize));
  argBuffer_.assign(argsSize + 16, 0);
  if (got)
    std::memcpy(argBuffer_.data(), args->data(), got);
  return OpStatus::success();
}

OpStatus KernelCommands::launch(const wire::Launch &c, std::string *what) {
  std::string why;
  const KernelInfo *k = sessionKernel(c.kernel_id(), &why);
  if (!k)
    return OpStatus::fail(kErrInvalidDeviceFunction, why);
  *what = "launch of " + k->describe();

  LaunchConfig cfg;
  OpStatus st =
      launchConfig(c.grid(), c.block(), c.shared_mem(), c.stream(), &cfg);
  if (!st.ok())
    return st;
  const auto &attr = devices_.boundDevice().attributes;
  auto attrOr = [&](CUdevice_attribute a, int32_t dflt) {
    size_t i = size_t(a);
    return i < attr.size() && attr[i] > 0 ? uint64_t(attr[i]) : uint64_t(dflt);
  };
  cfg.cooperative = c.cooperative();
  cfg.programmaticSerialization = c.programmatic_serialization();
  if (cfg.cooperative && !attrOr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0))
    return OpStatus::fail(kErrNotSupported,
                          "the device has no cooperative launch");

  if (!(st = stageArgs(c.args(), k->argsSize)).ok())
    return st;
  for (size_t pi = 0; pi < k->params.size(); ++pi)
    for (uint32_t off : k->params[pi].pointerOffsets) {
      uint64_t ptr;
      std::memcpy(&ptr, argBuffer_.data() + off, 8);
      // One past the end is a valid pointer value (end iterators), so a
      // pointer is checked as a zero-length range.
      if (ptr != 0 && !memory_.inSession(ptr, 0))
        return OpStatus::fail(
            kErrInvalidValue,
            "parameter " + std::to_string(pi) + " (" + k->params[pi].name +
                ") pointer " + hexAddress(ptr) +
                (off != k->params[pi].offset
                     ? " at byte " + std::to_string(off - k->params[pi].offset)
                     : std::string()) +
                " is not inside any allocation of this session");
    }
  devices_.noteLaunch(k->describe());
  if (launchSink_) // validating a graph node: not launched (graph_commands.cpp)
    return launchSink_(*k, cfg, argBuffer_.data());
  return devices_.ctx()->launch(*k, cfg, argBuffer_.data());
}

OpStatus KernelCommands::handle(const wire::Launch &c, CommandAnswer &a) {
  return launch(c, a.what);
}

OpStatus KernelCommands::handle(const wire::ModuleLoad &c, CommandAnswer &) {
  if (c.module_id() == 0 || modules_.count(c.module_id()))
    return OpStatus::fail(
        kErrInvalidValue,
        "module handle " + hexAddress(c.module_id()) +
            (c.module_id() ? " is already in use" : " is null"));
  if (!c.image() || c.image()->size() == 0)
    return OpStatus::fail(kErrInvalidValue, "an empty module image");
  NativeHandle native = 0;
  OpStatus st = devices_.backend().loadModule(c.image()->data(),
                                              c.image()->size(), &native);
  if (st.ok())
    modules_[c.module_id()] = native;
  return st;
}

OpStatus KernelCommands::handle(const wire::ModuleUnload &c, CommandAnswer &) {
  auto m = modules_.find(c.module_id());
  if (m == modules_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "module handle " + hexAddress(c.module_id()) +
                              " names no module of this session");
  for (auto k = moduleKernels_.begin(); k != moduleKernels_.end();)
    k = k->second.module == c.module_id() ? moduleKernels_.erase(k)
                                          : std::next(k);
  // Kernels already launched keep running: the driver holds the module's
  // code in each context that used it until that work is done.
  devices_.backend().releaseModule(m->second);
  modules_.erase(m);
  return OpStatus::success();
}

OpStatus KernelCommands::handle(const wire::ModuleFunction &c,
                                CommandAnswer &a) {
  auto m = modules_.find(c.module_id());
  if (m == modules_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "module handle " + hexAddress(c.module_id()) +
                              " names no module of this session");
  if (c.function() == 0 || moduleKernels_.count(c.function()))
    return OpStatus::fail(kErrInvalidValue, "function handle " +
                                                hexAddress(c.function()) +
                                                " is null or already in use");
  std::string name = c.name() ? c.name()->str() : "";
  if (name.empty())
    return OpStatus::fail(kErrInvalidValue, "no kernel name");
  ModuleKernel mk;
  mk.module = c.module_id();
  OpStatus st = devices_.backend().moduleKernel(m->second, name, &mk.kernel);
  if (!st.ok())
    return st;
  mk.kernel.id = c.function();
  // The layout, for the client to pack arguments by.
  std::vector<uint32_t> layout;
  for (const ParamInfo &p : mk.kernel.params) {
    layout.push_back(p.offset);
    layout.push_back(p.size);
  }
  a.result.payload = reply_.builder().CreateVector(
      reinterpret_cast<const uint8_t *>(layout.data()), layout.size() * 4);
  a.give();
  moduleKernels_[c.function()] = std::move(mk);
  return st;
}

// The attributes the backend read when the kernel was looked up.
OpStatus KernelCommands::handle(const wire::FunctionAttributes &c,
                                CommandAnswer &a) {
  std::string why;
  const KernelInfo *kernel = moduleKernel(c.function(), &why);
  if (!kernel)
    return OpStatus::fail(kErrInvalidResourceHandle, why);
  const KernelAttrs &k = kernel->attrs;
  const int32_t values[] = {k.numRegs,           k.maxThreadsPerBlock,
                            k.sharedSizeBytes,   k.constSizeBytes,
                            k.localSizeBytes,    k.ptxVersion,
                            k.binaryVersion,     k.maxDynamicSharedSizeBytes,
                            k.preferredCarveout, k.cacheModeCA};
  a.result.payload = reply_.builder().CreateVector(
      reinterpret_cast<const uint8_t *>(values), sizeof values);
  a.give();
  return OpStatus::success();
}

OpStatus KernelCommands::handle(const wire::LaunchFunction &c,
                                CommandAnswer &a) {
  std::string why;
  const KernelInfo *kernel = moduleKernel(c.function(), &why);
  if (!kernel)
    return OpStatus::fail(kErrInvalidResourceHandle, why);
  const KernelInfo &k = *kernel;
  *a.what = "cuLaunchKernel of " + k.name;
  LaunchConfig cfg;
  OpStatus st =
      launchConfig(c.grid(), c.block(), c.shared_mem(), c.stream(), &cfg);
  if (!st.ok())
    return st;
  if (!(st = stageArgs(c.args(), k.argsSize)).ok())
    return st;
  devices_.noteLaunch("kernel " + k.name + " of a module loaded at run time");
  return devices_.ctx()->launch(k, cfg, argBuffer_.data());
}

} // namespace rc::server
