// The runtime's kernels: launches by ID, stub or launch configuration
// (kernel_launch.cpp), function attributes and occupancy answered locally
// (kernel_attrs.cpp), and driver-API modules the build never saw
// (kernel_modules.cpp, docs/driver-api.md). Which kernels exist is the
// runtime's KernelIndex (the manifests); this class keeps what the server
// said about them and the modules loaded since.
//
// Locking: guarded by the runtime's lock (runtime.h, "Locking"); the public
// calls take it, *Locked ones expect it held.
#ifndef RC_RT_KERNELS_H
#define RC_RT_KERNELS_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rc::manifest {
struct Kernel;
} // namespace rc::manifest

namespace rc::wire {
struct HelloReply;
} // namespace rc::wire

namespace rc::rt {

class Runtime;
struct GraphNode;

class Kernels {
public:
  explicit Kernels(Runtime &rt) : rt_(rt) {}
  Kernels(const Kernels &) = delete;
  Kernels &operator=(const Kernels &) = delete;

  // ---- launches (kernel_launch.cpp) ------------------------------------
  cudaError_t launch(uint64_t id, dim3 grid, dim3 block, void **args,
                     size_t shmem, cudaStream_t stream, bool perThread);
  cudaError_t launchStub(const void *stub, dim3 grid, dim3 block, void **args,
                         size_t shmem, cudaStream_t stream, bool perThread);
  cudaError_t launchEx(const cudaLaunchConfig_t *cfg, uint64_t id, void **args,
                       bool perThread);
  // cudaLaunchCooperativeKernel / __rc_launch_cooperative_kernel.
  cudaError_t launchCooperative(uint64_t id, dim3 grid, dim3 block, void **args,
                                size_t shmem, cudaStream_t stream,
                                bool perThread);
  cudaError_t stubToId(const void *stub, uint64_t *id);
  // The manifests' record of kernel `id` (its name and parameter layout)
  // and its module's fatbin hash; the record lives as long as the runtime.
  cudaError_t kernelRecord(uint64_t id, const manifest::Kernel **kernel,
                           uint64_t *moduleHash);

  // ---- attributes, occupancy (kernel_attrs.cpp) -------------------------
  // From HelloReply.kernel_attributes: answered locally.
  cudaError_t funcGetAttributes(cudaFuncAttributes *attr, uint64_t id);
  // Updates the local copy and batches FuncSetAttribute.
  cudaError_t funcSetAttribute(uint64_t id, cudaFuncAttribute attr, int value);
  // cudaFuncSetCacheConfig: on GPUs where L1 and shared memory share one
  // array (Volta and later) a preference of carveout, sent as one.
  // `config` is a cudaFuncCache as the program passed it, any number.
  cudaError_t funcSetCacheConfig(uint64_t id, int config);
  cudaError_t occupancyMaxActiveBlocks(int *numBlocks, uint64_t id,
                                       int blockSize, size_t dynamicSmem,
                                       unsigned flags);

  // ---- driver-API modules (kernel_modules.cpp) --------------------------
  // An image (cubin, fatbin or NUL-terminated PTX) of `size` bytes goes to
  // the server, which loads it: one round trip, so a JIT error is this
  // call's.
  cudaError_t moduleLoad(const void *image, size_t size, uint64_t *module);
  cudaError_t moduleUnload(uint64_t module);
  // One round trip: the server answers the kernel's parameter layout.
  cudaError_t moduleFunction(uint64_t module, const char *name,
                             uint64_t *function);
  // Arguments as cuLaunchKernel takes them: `params` (one pointer per
  // parameter) or `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE).
  cudaError_t launchFunction(uint64_t function, dim3 grid, dim3 block,
                             unsigned sharedMem, cudaStream_t stream,
                             void **params, void **extra);

  // ---- with the runtime's lock held -------------------------------------
  // `flags`: kLaunchCooperative | kLaunchPdl.
  static constexpr unsigned kLaunchCooperative = 1, kLaunchPdl = 2;
  // The Launch node a launch stands for, checked as cudart checks it at the
  // call (configuration, cooperative limits, arguments against the
  // manifest's layout).
  cudaError_t kernelNodeLocked(uint64_t id, dim3 grid, dim3 block, void **args,
                               size_t shmem, const char *call, unsigned flags,
                               GraphNode *out);
  cudaError_t launchLocked(uint64_t id, dim3 grid, dim3 block, void **args,
                           size_t shmem, cudaStream_t stream, bool perThread,
                           const char *call, unsigned flags = 0);
  // At Hello: every kernel's attributes, from the handshake reply.
  void storeAttributesLocked(const wire::HelloReply &reply);

private:
  Runtime &rt_;
  // cudaErrorCooperativeLaunchTooLarge at the call when the grid cannot be
  // co-resident (occupancy x SM count), as cudart reports it.
  cudaError_t checkCooperativeLocked(uint64_t id, dim3 grid, dim3 block,
                                     size_t shmem);

  std::unordered_map<uint64_t, cudaFuncAttributes> funcAttrs_; // kernel id
  // Driver-API modules loaded, and their kernels' (offset, size) layouts.
  std::map<uint64_t, std::vector<uint64_t>> moduleFunctions_; // module -> fns
  std::map<uint64_t, std::vector<std::pair<uint32_t, uint32_t>>>
      functionLayouts_;
};

} // namespace rc::rt

#endif
