// Prints every device attribute of device 0 as cudaDeviceGetAttribute and
// cuDeviceGetAttribute answer it, and the cudaDeviceProp fields, for
// DeviceAttrs.* to compare (linked like an application: librc_cudart.so,
// librc_cuda.so).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    std::fprintf(stderr, "FAIL: cudaGetDeviceProperties\n");
    return 1;
  }
  CUdevice dev = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
    std::fprintf(stderr, "FAIL: cuInit / cuDeviceGet\n");
    return 1;
  }
  // Past CU_DEVICE_ATTRIBUTE_MAX too: what the headers do not know fails.
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX + 16; ++a) {
    int rt = 0, drv = 0;
    bool rtOk =
        cudaDeviceGetAttribute(&rt, cudaDeviceAttr(a), 0) == cudaSuccess;
    bool drvOk =
        cuDeviceGetAttribute(&drv, CUdevice_attribute(a), dev) == CUDA_SUCCESS;
    std::printf("attr %d %s %s\n", a, rtOk ? std::to_string(rt).c_str() : "-",
                drvOk ? std::to_string(drv).c_str() : "-");
  }
#define FIELD(f, attr)                                                         \
  std::printf("prop %s %d %lld\n", #f, attr, (long long)p.f)
  FIELD(integrated, CU_DEVICE_ATTRIBUTE_INTEGRATED);
  FIELD(canMapHostMemory, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  FIELD(computeMode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
  FIELD(managedMemory, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
  FIELD(hostNativeAtomicSupported,
        CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED);
  FIELD(pageableMemoryAccess, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
  FIELD(concurrentManagedAccess, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  FIELD(canUseHostPointerForRegisteredMem,
        CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  FIELD(cooperativeLaunch, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  FIELD(cooperativeMultiDeviceLaunch,
        CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH);
  FIELD(pageableMemoryAccessUsesHostPageTables,
        CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
  FIELD(directManagedMemAccessFromHost,
        CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
  FIELD(sparseCudaArraySupported,
        CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED);
  FIELD(hostRegisterSupported, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  FIELD(hostRegisterReadOnlySupported,
        CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
  FIELD(timelineSemaphoreInteropSupported,
        CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED);
  FIELD(memoryPoolsSupported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  FIELD(gpuDirectRDMASupported, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
  FIELD(gpuDirectRDMAFlushWritesOptions,
        CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS);
  FIELD(gpuDirectRDMAWritesOrdering,
        CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING);
  FIELD(memoryPoolSupportedHandleTypes,
        CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES);
  FIELD(deferredMappingCudaArraySupported,
        CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
  FIELD(ipcEventSupported, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
  FIELD(clusterLaunch, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
  FIELD(unifiedFunctionPointers, CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS);
  FIELD(unifiedAddressing, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  FIELD(kernelExecTimeoutEnabled, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT);
  FIELD(multiProcessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  FIELD(maxThreadsPerMultiProcessor,
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  FIELD(regsPerMultiprocessor,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  FIELD(sharedMemPerMultiprocessor,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  FIELD(sharedMemPerBlockOptin,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  FIELD(maxBlocksPerMultiProcessor,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  FIELD(maxTexture1DMipmap,
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
  FIELD(maxSurface1D, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
#undef FIELD
  std::printf("DONE\n");
  return 0;
}
