// Launches: by constant ID (the pass's rewrite), by stub pointer
// (cudaLaunchKernel the pass did not see), and cudaLaunchKernelExC configs.
// Each becomes one Launch command in the batch: no round trip.
#include "core/arg_pack.h"
#include "core/kernels.h"
#include "core/runtime.h"
#include "core/unsupported.h"
#include "manifests/startup_registry.h"
#include "rc/kernel_id.h"

#include <cstdio>

namespace rc::rt {

namespace {
bool dimsFit(const dim3 &d, const int max[3]) {
  return d.x && d.y && d.z && d.x <= unsigned(max[0]) &&
         d.y <= unsigned(max[1]) && d.z <= unsigned(max[2]);
}
} // namespace

cudaError_t Kernels::launch(uint64_t id, dim3 grid, dim3 block, void **args,
                            size_t shmem, cudaStream_t stream, bool perThread) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  return launchLocked(id, grid, block, args, shmem, stream, perThread,
                      "launch");
}

cudaError_t Kernels::launchLocked(uint64_t id, dim3 grid, dim3 block,
                                  void **args, size_t shmem,
                                  cudaStream_t stream, bool perThread,
                                  const char *call, unsigned flags) {
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  // Timed after connecting: the first call's connection set-up is not a
  // launch's cost.
  ++rt_.stats_.launchCalls;
  ScopedNs timed(rt_.stats_.launchNs);
  GraphNode node;
  if (cudaError_t err =
          kernelNodeLocked(id, grid, block, args, shmem, call, flags, &node))
    return err;
  uint64_t sid;
  if (cudaError_t err = rt_.streams_.wireStreamLocked(stream, perThread, &sid))
    return err;
  if (rt_.graphs_.stateLocked().capturing(
          sid)) { // a graph node instead (graph_runtime.cpp)
    bool captured;
    return rt_.graphs_.captureLocked(sid, std::move(node), &captured);
  }
  rt_.ensureDeviceLocked();
  rt_.appendLocked(wire::Command::Launch, node.command(rt_.batch_.fbb(), sid),
                   {"launch", id});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Kernels::kernelNodeLocked(uint64_t id, dim3 grid, dim3 block,
                                      void **args, size_t shmem,
                                      const char *call, unsigned flags,
                                      GraphNode *out) {
  const manifest::Kernel *k = rt_.index_.kernel(id);
  if (!k) {
    std::fprintf(stderr,
                 "remote-clang: %s: kernel id 0x%016llx is in no loaded "
                 "manifest (%zu loaded; is <program>.rcm beside the binary, "
                 "or in RC_MANIFEST?)\n",
                 call, (unsigned long long)id, rt_.index_.manifestCount());
    return cudaErrorInvalidDeviceFunction;
  }
  // Configuration errors are reported at the call, as cudart does.
  const cudaDeviceProp &p = rt_.props_[threadDevice()];
  unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
  if (!dimsFit(grid, p.maxGridSize) || !dimsFit(block, p.maxThreadsDim) ||
      threads > (unsigned long long)p.maxThreadsPerBlock ||
      (p.sharedMemPerBlockOptin && shmem > p.sharedMemPerBlockOptin))
    return cudaErrorInvalidConfiguration;
  if (flags & kLaunchCooperative)
    if (cudaError_t err = checkCooperativeLocked(id, grid, block, shmem))
      return err;
  std::string error;
  GraphNode node;
  if (!packArgs(*k, args, node.args, &error)) {
    std::fprintf(stderr, "remote-clang: launch of %s: %s\n",
                 KernelIndex::describe(k).c_str(), error.c_str());
    return cudaErrorInvalidValue;
  }
  uint64_t hostAttached;
  if (rt_.managed_.pointsIntoHostAttached(node.args, &hostAttached)) {
    std::fprintf(stderr,
                 "remote-clang: launch of %s: argument 0x%llx points into "
                 "managed memory attached to the host (cudaMemAttachHost), "
                 "which kernels may not touch on GPUs without concurrent "
                 "managed access; attach it to a stream or globally first "
                 "(cudaStreamAttachMemAsync) (cudaErrorInvalidValue)\n",
                 KernelIndex::describe(k).c_str(),
                 (unsigned long long)hostAttached);
    return cudaErrorInvalidValue;
  }
  node.type = wire::Command::Launch;
  node.kernelId = id;
  node.grid[0] = grid.x, node.grid[1] = grid.y, node.grid[2] = grid.z;
  node.block[0] = block.x, node.block[1] = block.y, node.block[2] = block.z;
  node.sharedMem = uint32_t(shmem);
  node.cooperative = flags & kLaunchCooperative;
  node.programmaticSerialization = flags & kLaunchPdl;
  *out = std::move(node);
  return cudaSuccess;
}

cudaError_t Kernels::kernelRecord(uint64_t id, const manifest::Kernel **kernel,
                                  uint64_t *moduleHash) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  *kernel = rt_.index_.kernel(id);
  *moduleHash = rt_.index_.moduleHashOf(id);
  return *kernel ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

cudaError_t Kernels::stubToId(const void *stub, uint64_t *id) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t moduleHash;
  std::string name;
  if (!StartupRegistry::instance().function(stub, &moduleHash, &name)) {
    std::fprintf(stderr,
                 "remote-clang: %p is not a registered kernel stub (a kernel "
                 "launch or attribute query)\n",
                 stub);
    return cudaErrorInvalidDeviceFunction;
  }
  const manifest::Kernel *k = rt_.index_.kernelFor(moduleHash, name);
  if (!k) {
    // A kernel with external linkage that several translation units
    // instantiate (a header template: CUB's EmptyKernel) is one kernel by
    // the ODR; the merged manifest keeps it under one module, and the stub
    // the linker kept may have been registered by another.
    const manifest::Kernel *same =
        rt_.index_.kernel(rc::symbolId(name, false, ""));
    if (same && same->name() && same->name()->str() == name)
      k = same;
  }
  if (!k) {
    std::fprintf(stderr,
                 "remote-clang: kernel %s (stub %p) is in no loaded manifest "
                 "(%zu loaded)\n",
                 name.c_str(), stub, rt_.index_.manifestCount());
    return cudaErrorInvalidDeviceFunction;
  }
  *id = k->id();
  return cudaSuccess;
}

cudaError_t Kernels::launchStub(const void *stub, dim3 grid, dim3 block,
                                void **args, size_t shmem, cudaStream_t stream,
                                bool perThread) {
  uint64_t id;
  if (cudaError_t err = stubToId(stub, &id))
    return err;
  return launch(id, grid, block, args, shmem, stream, perThread);
}

// Attributes are honoured (PDL and cooperative travel in the Launch
// command), ignored when they only tune performance (the kernel computes
// the same result without them), or refused by name.
cudaError_t Kernels::launchEx(const cudaLaunchConfig_t *cfg, uint64_t id,
                              void **args, bool perThread) {
  if (!cfg || (cfg->numAttrs && !cfg->attrs))
    return cudaErrorInvalidValue;
  unsigned flags = 0;
  for (unsigned i = 0; i < cfg->numAttrs; ++i) {
    const cudaLaunchAttribute &a = cfg->attrs[i];
    switch (a.id) {
    case cudaLaunchAttributeIgnore:
    case cudaLaunchAttributeAccessPolicyWindow: // cache hint
    case cudaLaunchAttributePriority:           // scheduling hint
    case cudaLaunchAttributeMemSyncDomainMap:   // fence-scope hint
    case cudaLaunchAttributeMemSyncDomain:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
      break;
    // PDL: the kernel may start before the previous one in the stream ends
    // (it waits in cudaGridDependencySynchronize); the server launches it
    // with the same attribute, so the overlap really happens.
    case cudaLaunchAttributeProgrammaticStreamSerialization:
      if (a.val.programmaticStreamSerializationAllowed)
        flags |= kLaunchPdl;
      break;
    case cudaLaunchAttributeCooperative:
      if (a.val.cooperative)
        flags |= kLaunchCooperative;
      break;
    case cudaLaunchAttributeClusterDimension:
      if (a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1)
        return reportUnsupported(
            "cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension");
      break;
    case cudaLaunchAttributeProgrammaticEvent:
      return reportUnsupported(
          "cudaLaunchKernelEx with cudaLaunchAttributeProgrammaticEvent");
    case cudaLaunchAttributeLaunchCompletionEvent:
      return reportUnsupported(
          "cudaLaunchKernelEx with cudaLaunchAttributeLaunchCompletionEvent");
    default:
      return reportUnsupported(
          "cudaLaunchKernelEx with an unknown launch attribute");
    }
  }
  std::lock_guard<std::mutex> lock(rt_.mu_);
  return launchLocked(id, cfg->gridDim, cfg->blockDim, args,
                      cfg->dynamicSmemBytes, cfg->stream, perThread,
                      "cudaLaunchKernelEx", flags);
}

cudaError_t Kernels::launchCooperative(uint64_t id, dim3 grid, dim3 block,
                                       void **args, size_t shmem,
                                       cudaStream_t stream, bool perThread) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  return launchLocked(id, grid, block, args, shmem, stream, perThread,
                      "cudaLaunchCooperativeKernel", kLaunchCooperative);
}

} // namespace rc::rt
