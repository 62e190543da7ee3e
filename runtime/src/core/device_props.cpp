#include "core/device_props.h"

#include <cstring>

namespace rc::rt {

namespace {

#define RC_ATTR(x) CU_DEVICE_ATTRIBUTE_##x, "CU_DEVICE_ATTRIBUTE_" #x

// What a client gets where it differs from what the GPU reports to
// rc-server: the GPU is on another machine, reached only through the
// runtime, and some driver features are not served. Each reason says why;
// docs/runtime-api.md carries this table.
const std::vector<RemoteAttribute> kRemoteAttributes = {
    {RC_ATTR(INTEGRATED), "cudaDevAttrIntegrated", "integrated", 0,
     "the GPU does not share this host's memory: every byte crosses the "
     "network"},
    {RC_ATTR(CAN_MAP_HOST_MEMORY), "cudaDevAttrCanMapHostMemory",
     "canMapHostMemory", 0,
     "kernels cannot reach this host's memory: `cudaHostAllocMapped` and "
     "`cudaHostGetDevicePointer` are refused"},
    {RC_ATTR(COMPUTE_MODE), "cudaDevAttrComputeMode", "computeMode", 0,
     "`cudaComputeModeDefault`: rc-server is the GPU's one process and "
     "serves any number of client processes, each in a context of its own, "
     "whatever mode the GPU is set to"},
    {RC_ATTR(MANAGED_MEMORY), "cudaDevAttrManagedMemory", "managedMemory", 1,
     "`cudaMallocManaged` is served by host mirrors "
     "([managed memory](managed-memory.md#host-mirrors)), on any GPU"},
    {RC_ATTR(HOST_NATIVE_ATOMIC_SUPPORTED),
     "cudaDevAttrHostNativeAtomicSupported", "hostNativeAtomicSupported", 0,
     "host and device atomics on the same memory cannot be coherent across "
     "the network"},
    {RC_ATTR(PAGEABLE_MEMORY_ACCESS), "cudaDevAttrPageableMemoryAccess",
     "pageableMemoryAccess", 0,
     "kernels cannot read this host's pageable memory"},
    {RC_ATTR(CONCURRENT_MANAGED_ACCESS), "cudaDevAttrConcurrentManagedAccess",
     "concurrentManagedAccess", 0,
     "the host may touch managed memory only while the device is idle: the "
     "mirrors are made coherent at synchronizations"},
    {RC_ATTR(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
     "cudaDevAttrCanUseHostPointerForRegisteredMem",
     "canUseHostPointerForRegisteredMem", 0,
     "registered host memory is recorded as pinned, not mapped for the GPU"},
    {RC_ATTR(CAN_USE_STREAM_MEM_OPS_V1), "", "", 0,
     "`cuStreamWaitValue*`, `cuStreamWriteValue*` and `cuStreamBatchMemOp` "
     "are not served"},
    {RC_ATTR(CAN_USE_64_BIT_STREAM_MEM_OPS_V1), "", "", 0,
     "stream memory operations are not served"},
    {RC_ATTR(CAN_USE_STREAM_WAIT_VALUE_NOR_V1), "", "", 0,
     "stream memory operations are not served"},
    {RC_ATTR(CAN_FLUSH_REMOTE_WRITES), "cudaDevAttrCanFlushRemoteWrites", "", 0,
     "no third-party device writes to the GPU through remote-clang "
     "(`cuFlushGPUDirectRDMAWrites` is not served)"},
    {RC_ATTR(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES),
     "cudaDevAttrPageableMemoryAccessUsesHostPageTables",
     "pageableMemoryAccessUsesHostPageTables", 0,
     "the GPU never walks this host's page tables"},
    {RC_ATTR(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
     "cudaDevAttrDirectManagedMemAccessFromHost",
     "directManagedMemAccessFromHost", 0,
     "the host reads and writes its mirror of managed memory, never the "
     "device's copy"},
    {RC_ATTR(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED), "", "", 0,
     "`cuMemExportToShareableHandle` is not served: a descriptor of "
     "rc-server's process means nothing in this one"},
    {RC_ATTR(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED), "", "", 0,
     "shareable handles are not served"},
    {RC_ATTR(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED), "", "", 0,
     "shareable handles are not served"},
    {RC_ATTR(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED), "", "", 0,
     "no device of this host can reach the GPU's memory"},
    {RC_ATTR(SPARSE_CUDA_ARRAY_SUPPORTED),
     "cudaDevAttrSparseCudaArraySupported", "sparseCudaArraySupported", 0,
     "sparse arrays (`cuMemMapArrayAsync`) are not served"},
    {RC_ATTR(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED),
     "cudaDevAttrTimelineSemaphoreInteropSupported",
     "timelineSemaphoreInteropSupported", 0,
     "external semaphores are not served"},
    {RC_ATTR(GPU_DIRECT_RDMA_SUPPORTED), "cudaDevAttrGPUDirectRDMASupported",
     "gpuDirectRDMASupported", 0,
     "no device of this host can reach the GPU's memory"},
    {RC_ATTR(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS),
     "cudaDevAttrGPUDirectRDMAFlushWritesOptions",
     "gpuDirectRDMAFlushWritesOptions", 0, "no GPUDirect RDMA"},
    {RC_ATTR(GPU_DIRECT_RDMA_WRITES_ORDERING),
     "cudaDevAttrGPUDirectRDMAWritesOrdering", "gpuDirectRDMAWritesOrdering", 0,
     "no GPUDirect RDMA (`cudaGPUDirectRDMAWritesOrderingNone`)"},
    {RC_ATTR(MEMPOOL_SUPPORTED_HANDLE_TYPES),
     "cudaDevAttrMemoryPoolSupportedHandleTypes",
     "memoryPoolSupportedHandleTypes", 0,
     "exporting a memory pool is not served: a handle of rc-server's "
     "process means nothing in this one"},
    {RC_ATTR(CLUSTER_LAUNCH), "cudaDevAttrClusterLaunch", "clusterLaunch", 0,
     "thread block clusters are not served: `cudaLaunchKernelEx` with a "
     "cluster dimension and the cluster function attributes are refused"},
    {RC_ATTR(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED),
     "cudaDevAttrDeferredMappingCudaArraySupported",
     "deferredMappingCudaArraySupported", 0,
     "deferred mapping arrays are not served"},
    {RC_ATTR(CAN_USE_64_BIT_STREAM_MEM_OPS), "", "", 0,
     "stream memory operations are not served"},
    {RC_ATTR(CAN_USE_STREAM_WAIT_VALUE_NOR), "", "", 0,
     "stream memory operations are not served"},
    {RC_ATTR(DMA_BUF_SUPPORTED), "", "", 0,
     "`cuMemGetHandleForAddressRange` is not served"},
    {RC_ATTR(IPC_EVENT_SUPPORTED), "cudaDevAttrIpcEventSupport",
     "ipcEventSupported", 0,
     "`cudaIpc*` is not served: no other process can open this one's events "
     "or memory"},
    {RC_ATTR(TENSOR_MAP_ACCESS_SUPPORTED), "", "", 0,
     "`cuTensorMapEncode*` is not served"},
    {RC_ATTR(HANDLE_TYPE_FABRIC_SUPPORTED), "", "", 0,
     "shareable handles are not served"},
    {RC_ATTR(UNIFIED_FUNCTION_POINTERS), "", "unifiedFunctionPointers", 0,
     "a host function's address is this process's, not the GPU's"},
    {RC_ATTR(NUMA_CONFIG), "cudaDevAttrNumaConfig", "", 0,
     "`CU_DEVICE_NUMA_CONFIG_NONE`: the GPU's memory is no NUMA node of this "
     "host"},
    {RC_ATTR(NUMA_ID), "cudaDevAttrNumaId", "", -1,
     "the GPU's memory is no NUMA node of this host"},
    {RC_ATTR(MULTICAST_SUPPORTED), "", "", 0, "`cuMulticast*` is not served"},
    {RC_ATTR(HOST_NUMA_ID), "cudaDevAttrHostNumaId", "", -1,
     "no NUMA node of this host is near the GPU"},
};

#undef RC_ATTR

std::string code(const char *name) { return "`" + std::string(name) + "`"; }

} // namespace

const std::vector<RemoteAttribute> &remoteAttributes() {
  return kRemoteAttributes;
}

std::string remoteAttributesMarkdown() {
  std::string out = "| attribute | cudart, `cudaDeviceProp` | value | why |\n"
                    "|---|---|---|---|\n";
  for (const RemoteAttribute &a : kRemoteAttributes) {
    std::string also;
    if (*a.runtimeName)
      also = code(a.runtimeName);
    if (*a.propField)
      also += (also.empty() ? "" : ", ") + code(a.propField);
    out += "| " + code(a.driverName) + " (" + std::to_string(int(a.attribute)) +
           ") | " + also + " | " + std::to_string(a.value) + " | " + a.reason +
           " |\n";
  }
  return out;
}

int attributeOr0(const std::vector<int32_t> &attrs, int a) {
  return a >= 0 && size_t(a) < attrs.size() ? attrs[a] : 0;
}

std::vector<int32_t> attributesSeenRemotely(const wire::DeviceInfo &info) {
  std::vector<int32_t> a;
  if (info.attributes())
    a.assign(info.attributes()->begin(), info.attributes()->end());
  // The attributes of the CUDA this runtime implements (12.4's): a server
  // built with newer headers sends more, which no program built against
  // these can name and which would go unchecked here (CUDA 13's
  // ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED, HOST_MEMORY_POOLS_SUPPORTED,
  // ...); one built with older headers sends fewer, read as 0.
  a.resize(CU_DEVICE_ATTRIBUTE_MAX, 0);
  for (const RemoteAttribute &r : kRemoteAttributes)
    a[size_t(r.attribute)] = r.value;
  return a;
}

void fillDeviceProp(cudaDeviceProp &p, const wire::DeviceInfo &info) {
  std::memset(&p, 0, sizeof p);
  std::vector<int32_t> a = attributesSeenRemotely(info);
  auto at = [&](CUdevice_attribute attr) { return attributeOr0(a, attr); };
  using A = CUdevice_attribute;
  auto at2 = [&](int out[2], A x, A y) { out[0] = at(x), out[1] = at(y); };
  auto at3 = [&](int out[3], A x, A y, A z) {
    out[0] = at(x), out[1] = at(y), out[2] = at(z);
  };

  if (info.name())
    std::strncpy(p.name, info.name()->c_str(), sizeof p.name - 1);
  if (info.uuid() && info.uuid()->size() == sizeof p.uuid.bytes)
    std::memcpy(p.uuid.bytes, info.uuid()->data(), sizeof p.uuid.bytes);
  // luid and luidDeviceNodeMask are Windows-only: 0.
  p.totalGlobalMem = info.total_mem();
  p.sharedMemPerBlock = at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  p.regsPerBlock = at(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p.warpSize = at(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  p.memPitch = at(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
  p.maxThreadsPerBlock = at(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  at3(p.maxThreadsDim, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  at3(p.maxGridSize, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
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
  p.maxTexture1DMipmap =
      at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
  p.maxTexture1DLinear = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
  at2(p.maxTexture2D, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
  at2(p.maxTexture2DMipmap,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT);
  at3(p.maxTexture2DLinear, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH);
  at2(p.maxTexture2DGather, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT);
  at3(p.maxTexture3D, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
  at3(p.maxTexture3DAlt, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE);
  p.maxTextureCubemap = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH);
  at2(p.maxTexture1DLayered,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
  at3(p.maxTexture2DLayered,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
  at2(p.maxTextureCubemapLayered,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS);
  p.maxSurface1D = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
  at2(p.maxSurface2D, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
  at3(p.maxSurface3D, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH);
  at2(p.maxSurface1DLayered,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS);
  at3(p.maxSurface2DLayered,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS);
  p.maxSurfaceCubemap = at(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH);
  at2(p.maxSurfaceCubemapLayered,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS);
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
  p.cooperativeMultiDeviceLaunch =
      at(CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH);
  p.sharedMemPerBlockOptin =
      at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  p.pageableMemoryAccessUsesHostPageTables =
      at(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
  p.directManagedMemAccessFromHost =
      at(CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
  p.maxBlocksPerMultiProcessor =
      at(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  p.accessPolicyMaxWindowSize =
      at(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
  p.reservedSharedMemPerBlock =
      at(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  p.hostRegisterSupported = at(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  p.sparseCudaArraySupported =
      at(CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED);
  p.hostRegisterReadOnlySupported =
      at(CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
  p.timelineSemaphoreInteropSupported =
      at(CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED);
  p.memoryPoolsSupported = at(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  p.gpuDirectRDMASupported = at(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
  p.gpuDirectRDMAFlushWritesOptions =
      unsigned(at(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS));
  p.gpuDirectRDMAWritesOrdering =
      at(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING);
  p.memoryPoolSupportedHandleTypes =
      unsigned(at(CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES));
  p.deferredMappingCudaArraySupported =
      at(CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
  p.ipcEventSupported = at(CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
  p.clusterLaunch = at(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
  p.unifiedFunctionPointers = at(CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS);
}

} // namespace rc::rt
