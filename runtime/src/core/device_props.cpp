#include "core/device_props.h"

#include <cuda.h>

#include <algorithm>
#include <cstring>

namespace rc::rt {

int attributeOr0(const std::vector<int32_t> &attrs, int a) {
  return a >= 0 && size_t(a) < attrs.size() ? attrs[a] : 0;
}

std::vector<int32_t> attributesSeenRemotely(const wire::DeviceInfo &info) {
  std::vector<int32_t> a;
  if (info.attributes())
    a.assign(info.attributes()->begin(), info.attributes()->end());
  for (CUdevice_attribute hostCoupled :
       {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
        CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
        CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS,
        CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES,
        CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST,
        CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED,
        CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM})
    if (size_t(hostCoupled) < a.size())
      a[size_t(hostCoupled)] = 0;
  // Managed memory is served by host mirrors (runtime_managed.cpp), without
  // concurrent access: the host touches it while the device is idle.
  if (size_t(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) < a.size())
    a[size_t(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)] = 1;
  return a;
}

void fillDeviceProp(cudaDeviceProp &p, const wire::DeviceInfo &info) {
  std::memset(&p, 0, sizeof p);
  std::vector<int32_t> a = attributesSeenRemotely(info);
  auto at = [&](CUdevice_attribute attr) { return attributeOr0(a, attr); };

  if (info.name())
    std::strncpy(p.name, info.name()->c_str(), sizeof p.name - 1);
  if (info.uuid() && info.uuid()->size() == sizeof p.uuid.bytes)
    std::memcpy(p.uuid.bytes, info.uuid()->data(), sizeof p.uuid.bytes);
  p.totalGlobalMem = info.total_mem();
  p.sharedMemPerBlock = at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  p.regsPerBlock = at(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p.warpSize = at(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  p.memPitch = at(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
  p.maxThreadsPerBlock = at(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p.maxThreadsDim[0] = at(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  p.maxThreadsDim[1] = at(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  p.maxThreadsDim[2] = at(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  p.maxGridSize[0] = at(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  p.maxGridSize[1] = at(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  p.maxGridSize[2] = at(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  p.clockRate = at(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p.totalConstMem = at(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  p.major = at(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.minor = at(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.textureAlignment = at(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
  p.texturePitchAlignment = at(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
  p.deviceOverlap = at(CU_DEVICE_ATTRIBUTE_GPU_OVERLAP);
  p.multiProcessorCount = at(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.kernelExecTimeoutEnabled = at(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT);
  p.integrated = at(CU_DEVICE_ATTRIBUTE_INTEGRATED);
  p.canMapHostMemory = at(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  p.computeMode = at(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
  p.maxTexture1D = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH);
  p.maxTexture2D[0] = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH);
  p.maxTexture2D[1] = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
  p.maxTexture3D[0] = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
  p.maxTexture3D[1] = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
  p.maxTexture3D[2] = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
  p.surfaceAlignment = at(CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT);
  p.concurrentKernels = at(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
  p.ECCEnabled = at(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
  p.pciBusID = at(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  p.pciDeviceID = at(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  p.pciDomainID = at(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  p.tccDriver = at(CU_DEVICE_ATTRIBUTE_TCC_DRIVER);
  p.asyncEngineCount = at(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  p.unifiedAddressing = at(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  p.memoryClockRate = at(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p.memoryBusWidth = at(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p.l2CacheSize = at(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  p.persistingL2CacheMaxSize =
      at(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
  p.maxThreadsPerMultiProcessor =
      at(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  p.streamPrioritiesSupported =
      at(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
  p.globalL1CacheSupported = at(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
  p.localL1CacheSupported = at(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
  p.sharedMemPerMultiprocessor =
      at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  p.regsPerMultiprocessor =
      at(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  p.managedMemory = at(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
  p.isMultiGpuBoard = at(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
  p.multiGpuBoardGroupID = at(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID);
  p.hostNativeAtomicSupported =
      at(CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED);
  p.singleToDoublePrecisionPerfRatio =
      at(CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO);
  p.pageableMemoryAccess = at(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
  p.concurrentManagedAccess = at(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  p.computePreemptionSupported =
      at(CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
  p.canUseHostPointerForRegisteredMem =
      at(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  p.cooperativeLaunch = at(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  p.sharedMemPerBlockOptin =
      at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  p.maxBlocksPerMultiProcessor =
      at(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  p.accessPolicyMaxWindowSize =
      at(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
  p.reservedSharedMemPerBlock =
      at(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  p.hostRegisterSupported = at(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  p.sparseCudaArraySupported =
      at(CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED);
  p.memoryPoolsSupported = at(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  p.gpuDirectRDMASupported = at(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
  p.clusterLaunch = at(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
  p.unifiedFunctionPointers = at(CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS);
}

} // namespace rc::rt
