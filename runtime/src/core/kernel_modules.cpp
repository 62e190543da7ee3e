// Driver-API modules the build never saw (docs/driver-api.md): the image
// is loaded by rc-server (one round trip, so a JIT error is the call's),
// a kernel's parameter layout comes back from the server once per
// cuModuleGetFunction, and launches pack their arguments by it and are
// batched like any launch.
#include "core/kernels.h"
#include "core/runtime.h"

#include <cstdio>
#include <cstring>

namespace rc::rt {

namespace {
// cuLaunchKernel's `extra` markers (cuda.h), with the runtime's names.
void *const kParamBufferPointer = reinterpret_cast<void *>(1);
void *const kParamBufferSize = reinterpret_cast<void *>(2);
void *const kParamEnd = reinterpret_cast<void *>(0);
} // namespace

cudaError_t Kernels::moduleLoad(const void *image, size_t size,
                                uint64_t *module) {
  if (!image || !size || !module)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  uint64_t id = rt_.nextHandle_++;
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  auto bytes = fbb.CreateVector(static_cast<const uint8_t *>(image), size);
  rt_.appendLocked(wire::Command::ModuleLoad,
                   wire::CreateModuleLoad(fbb, id, bytes).Union(),
                   {"cuModuleLoadData", 0});
  if (cudaError_t err = rt_.roundTripLocked({}, /*sync=*/false))
    return err;
  moduleFunctions_[id];
  *module = id;
  return cudaSuccess;
}

cudaError_t Kernels::moduleUnload(uint64_t module) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.unavailableLocked())
    return err;
  auto m = moduleFunctions_.find(module);
  if (m == moduleFunctions_.end())
    return cudaErrorInvalidResourceHandle;
  for (uint64_t f : m->second) {
    functionLayouts_.erase(f);
    funcAttrs_.erase(f);
  }
  moduleFunctions_.erase(m);
  rt_.appendLocked(wire::Command::ModuleUnload,
                   wire::CreateModuleUnload(rt_.batch_.fbb(), module).Union(),
                   {"cuModuleUnload", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Kernels::moduleFunction(uint64_t module, const char *name,
                                    uint64_t *function) {
  if (!name || !function)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  auto m = moduleFunctions_.find(module);
  if (m == moduleFunctions_.end())
    return cudaErrorInvalidResourceHandle;
  uint64_t id = rt_.nextHandle_++;
  // A kernel has at most 32764 bytes of parameters (CUDA 12.1), so at most
  // that many parameters: (offset, size) each.
  std::vector<uint32_t> layout(2 * 32764);
  size_t got = 0;
  Runtime::Sink sink;
  sink.index = rt_.appendLocked(
      wire::Command::ModuleFunction,
      wire::CreateModuleFunction(rt_.batch_.fbb(), module,
                                 rt_.batch_.fbb().CreateString(name), id)
          .Union(),
      {"cuModuleGetFunction", 0});
  sink.payload = layout.data();
  sink.payloadSize = layout.size() * 4;
  sink.payloadGot = &got;
  // Its attributes in the same round trip: cuFuncGetAttribute and the
  // occupancy calls then answer locally, as for the build's kernels.
  int32_t attrs[10] = {};
  size_t attrsGot = 0;
  Runtime::Sink attrSink;
  attrSink.index = rt_.appendLocked(
      wire::Command::FunctionAttributes,
      wire::CreateFunctionAttributes(rt_.batch_.fbb(), id).Union(),
      {"cuModuleGetFunction (attributes)", 0});
  attrSink.payload = attrs;
  attrSink.payloadSize = sizeof attrs;
  attrSink.payloadGot = &attrsGot;
  if (cudaError_t err = rt_.roundTripLocked({sink, attrSink}, /*sync=*/false))
    return err;
  std::vector<std::pair<uint32_t, uint32_t>> &params = functionLayouts_[id];
  for (size_t i = 0; i + 1 < got / 4; i += 2)
    params.push_back({layout[i], layout[i + 1]});
  if (attrsGot == sizeof attrs) {
    cudaFuncAttributes &a = funcAttrs_[id];
    a = cudaFuncAttributes{};
    a.numRegs = attrs[0];
    a.maxThreadsPerBlock = attrs[1];
    a.sharedSizeBytes = size_t(attrs[2]);
    a.constSizeBytes = size_t(attrs[3]);
    a.localSizeBytes = size_t(attrs[4]);
    a.ptxVersion = attrs[5];
    a.binaryVersion = attrs[6];
    a.maxDynamicSharedSizeBytes = attrs[7];
    a.preferredShmemCarveout = attrs[8];
    a.cacheModeCA = attrs[9];
  }
  m->second.push_back(id);
  *function = id;
  return cudaSuccess;
}

cudaError_t Kernels::launchFunction(uint64_t function, dim3 grid, dim3 block,
                                    unsigned sharedMem, cudaStream_t stream,
                                    void **params, void **extra) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  auto f = functionLayouts_.find(function);
  if (f == functionLayouts_.end())
    return cudaErrorInvalidResourceHandle;
  size_t end = 0;
  for (auto [offset, size] : f->second)
    end = std::max<size_t>(end, size_t(offset) + size);
  std::vector<uint8_t> args(end, 0);
  if (params) {
    for (size_t i = 0; i < f->second.size(); ++i) {
      if (!params[i])
        return cudaErrorInvalidValue;
      std::memcpy(args.data() + f->second[i].first, params[i],
                  f->second[i].second);
    }
  } else if (extra) {
    // CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE,
    // &size, CU_LAUNCH_PARAM_END: the arguments already packed.
    const void *buffer = nullptr;
    const size_t *bufferSize = nullptr;
    for (size_t i = 0; extra[i] != kParamEnd; i += 2) {
      if (extra[i] == kParamBufferPointer)
        buffer = extra[i + 1];
      else if (extra[i] == kParamBufferSize)
        bufferSize = static_cast<const size_t *>(extra[i + 1]);
      else
        return cudaErrorInvalidValue;
    }
    if (!buffer || !bufferSize || *bufferSize < end)
      return cudaErrorInvalidValue;
    std::memcpy(args.data(), buffer, end);
  } else if (end) {
    return cudaErrorInvalidValue; // parameters, and nothing to fill them
  }
  uint64_t sid;
  if (cudaError_t err = rt_.streams_.wireStreamLocked(stream, false, &sid))
    return err;
  if (rt_.graphs_.stateLocked().capturing(sid))
    return rt_.graphs_.refuseInCaptureLocked(sid, "cuLaunchKernel");
  rt_.ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  auto gv = fbb.CreateVector(g, 3);
  auto bv = fbb.CreateVector(b, 3);
  auto av = fbb.CreateVector(args);
  rt_.appendLocked(
      wire::Command::LaunchFunction,
      wire::CreateLaunchFunction(fbb, function, gv, bv, sharedMem, sid, av)
          .Union(),
      {"cuLaunchKernel", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

} // namespace rc::rt
