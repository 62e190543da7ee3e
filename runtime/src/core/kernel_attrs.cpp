// Function attributes and occupancy, answered locally: rc-server sends every
// kernel's cudaFuncAttributes in HelloReply (cuKernelGetAttribute on its
// device), cudaFuncSetAttribute updates the local copy and is batched to the
// server, and occupancy comes from occupancy.cpp.
#include "core/kernels.h"
#include "core/occupancy.h"
#include "core/runtime.h"
#include "core/unsupported.h"

#include <cuda.h>

#include <cstdio>
#include <cstring>

namespace rc::rt {

void Kernels::storeAttributesLocked(const wire::HelloReply &reply) {
  if (!reply.kernel_attributes())
    return; // an older server: the calls below fail naming the kernel
  for (const wire::KernelAttributes *k : *reply.kernel_attributes()) {
    cudaFuncAttributes a;
    std::memset(&a, 0, sizeof a);
    a.numRegs = k->num_regs();
    a.maxThreadsPerBlock = k->max_threads_per_block();
    a.sharedSizeBytes = size_t(k->shared_size_bytes());
    a.constSizeBytes = size_t(k->const_size_bytes());
    a.localSizeBytes = size_t(k->local_size_bytes());
    a.ptxVersion = k->ptx_version();
    a.binaryVersion = k->binary_version();
    a.maxDynamicSharedSizeBytes = k->max_dynamic_shared_size_bytes();
    a.preferredShmemCarveout = k->preferred_shared_memory_carveout();
    a.cacheModeCA = k->cache_mode_ca();
    funcAttrs_[k->kernel_id()] = a;
  }
}

namespace {
cudaError_t noAttributes(const char *call, uint64_t id) {
  std::fprintf(stderr,
               "remote-clang: %s: the GPU server sent no attributes for "
               "kernel id 0x%016llx (server older than this runtime?)\n",
               call, (unsigned long long)id);
  return cudaErrorInvalidDeviceFunction;
}
} // namespace

cudaError_t Kernels::funcGetAttributes(cudaFuncAttributes *attr, uint64_t id) {
  if (!attr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  auto it = funcAttrs_.find(id);
  if (it == funcAttrs_.end())
    return noAttributes("cudaFuncGetAttributes", id);
  *attr = it->second;
  return cudaSuccess;
}

cudaError_t Kernels::funcSetAttribute(uint64_t id, cudaFuncAttribute attr,
                                      int value) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  auto it = funcAttrs_.find(id);
  if (it == funcAttrs_.end())
    return noAttributes("cudaFuncSetAttribute", id);
  cudaFuncAttributes &a = it->second;
  const cudaDeviceProp &p = rt_.props_[threadDevice()];
  int driverAttr;
  switch (attr) {
  case cudaFuncAttributeMaxDynamicSharedMemorySize:
    // As the driver checks it: static + dynamic within the opt-in limit.
    if (value < 0 ||
        a.sharedSizeBytes + size_t(value) > p.sharedMemPerBlockOptin)
      return cudaErrorInvalidValue;
    a.maxDynamicSharedSizeBytes = value;
    driverAttr = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    break;
  case cudaFuncAttributePreferredSharedMemoryCarveout:
    if (value < -1 || value > 100)
      return cudaErrorInvalidValue;
    a.preferredShmemCarveout = value;
    driverAttr = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    break;
  default:
    __rc_report_unsupported("cudaFuncSetAttribute with a cluster attribute",
                            "runtime");
    return cudaErrorNotSupported;
  }
  rt_.ensureDeviceLocked();
  rt_.appendLocked(
      wire::Command::FuncSetAttribute,
      wire::CreateFuncSetAttribute(rt_.batch_.fbb(), id, driverAttr, value)
          .Union(),
      {"cudaFuncSetAttribute", id});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Kernels::funcSetCacheConfig(uint64_t id, int config) {
  int carveout;
  switch (config) {
  case cudaFuncCachePreferNone:
    carveout = cudaSharedmemCarveoutDefault;
    break;
  case cudaFuncCachePreferShared:
    carveout = cudaSharedmemCarveoutMaxShared;
    break;
  case cudaFuncCachePreferL1:
    carveout = cudaSharedmemCarveoutMaxL1;
    break;
  case cudaFuncCachePreferEqual:
    carveout = 50;
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return funcSetAttribute(id, cudaFuncAttributePreferredSharedMemoryCarveout,
                          carveout);
}

namespace {
// The device is the client's view of it (attributesSeenRemotely), as
// cudaGetDeviceProperties reports it.
int blocksPerSM(const std::vector<int32_t> &deviceAttrs,
                const cudaFuncAttributes &a, int blockSize,
                size_t dynamicSmem) {
  OccupancyKernel k;
  k.numRegs = a.numRegs;
  k.maxThreadsPerBlock = a.maxThreadsPerBlock;
  k.staticSmem = a.sharedSizeBytes;
  k.maxDynamicSmem = a.maxDynamicSharedSizeBytes;
  k.preferredCarveout = a.preferredShmemCarveout;
  return maxActiveBlocksPerSM(occupancyDevice(deviceAttrs), k, blockSize,
                              dynamicSmem)
      .result;
}
} // namespace

cudaError_t Kernels::occupancyMaxActiveBlocks(int *numBlocks, uint64_t id,
                                              int blockSize, size_t dynamicSmem,
                                              unsigned flags) {
  if (!numBlocks || blockSize <= 0 ||
      (flags & ~unsigned(cudaOccupancyDisableCachingOverride)))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  auto it = funcAttrs_.find(id);
  if (it == funcAttrs_.end())
    return noAttributes("cudaOccupancyMaxActiveBlocksPerMultiprocessor", id);
  *numBlocks = blocksPerSM(rt_.attrs_[threadDevice()], it->second, blockSize,
                           dynamicSmem);
  return cudaSuccess;
}

cudaError_t Kernels::checkCooperativeLocked(uint64_t id, dim3 grid, dim3 block,
                                            size_t shmem) {
  auto it = funcAttrs_.find(id);
  if (it == funcAttrs_.end())
    return cudaSuccess; // unknown here: the server's launch decides
  const cudaDeviceProp &p = rt_.props_[threadDevice()];
  unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
  unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
  int perSM =
      blocksPerSM(rt_.attrs_[threadDevice()], it->second, int(threads), shmem);
  if (blocks > (unsigned long long)perSM * p.multiProcessorCount)
    return cudaErrorCooperativeLaunchTooLarge;
  return cudaSuccess;
}

} // namespace rc::rt
