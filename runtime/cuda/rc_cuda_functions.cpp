// librc_cuda's calls on a CUfunction: attributes, cache and shared memory
// preferences, names and parameters, occupancy, cooperative and extended
// launches. A CUfunction is one of two things here: a kernel the build
// compiled, named by its stub (what cudaGetFuncBySymbol gives), so every
// call is the runtime's; or a kernel of a module loaded at run time
// (cuModuleGetFunction, rc_cuda_module.cpp), whose attributes came with
// its lookup, so attributes and occupancy are answered for it too; what
// the runtime does only for the build's kernels (setting attributes,
// cooperative and extended launches with attributes) refuses it by name
// (docs/driver-api.md).
#include "cu_module_names.h"
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
int __rc_kernel_stub(const void *f);
int __rc_report_unsupported(const char *call, const char *library);
cudaError_t __rc_function_attributes(uint64_t id, cudaFuncAttributes *attr);
cudaError_t __rc_function_occupancy(int *blocks, uint64_t id, int blockSize,
                                    size_t dynamicSmem, unsigned flags);
cudaError_t __rc_function_available_smem(size_t *dynamicSmemSize, uint64_t id,
                                         int numBlocks, int blockSize);
cudaError_t
__rc_module_cluster_occupancy(int *answer, uint64_t function, int potentialSize,
                              const unsigned grid[3], const unsigned block[3],
                              unsigned sharedMem, const unsigned cluster[3],
                              int schedulingPolicy);
}

using rc::cu::fromRuntime;

namespace {

const void *stubOf(CUfunction f) { return reinterpret_cast<const void *>(f); }
bool isStub(CUfunction f) { return f && __rc_kernel_stub(stubOf(f)); }

// A module kernel where only a build kernel is served: refused by name.
CUresult moduleKernel(const char *call) {
  __rc_report_unsupported(
      (std::string(call) + " of a kernel of a module loaded at run time")
          .c_str(),
      "driver library");
  return CUDA_ERROR_NOT_SUPPORTED;
}

uint64_t moduleId(CUfunction f) { return uint64_t(uintptr_t(f)); }

cudaError_t attributesOf(CUfunction f, cudaFuncAttributes *a) {
  return isStub(f) ? cudaFuncGetAttributes(a, stubOf(f))
                   : __rc_function_attributes(moduleId(f), a);
}

cudaError_t occupancyOf(int *blocks, CUfunction f, int blockSize,
                        size_t dynamicSmem, unsigned flags) {
  return isStub(f) ? cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                         blocks, stubOf(f), blockSize, dynamicSmem, flags)
                   : __rc_function_occupancy(blocks, moduleId(f), blockSize,
                                             dynamicSmem, flags);
}

int number(CUfunction_attribute a) {
  int n;
  std::memcpy(&n, &a, sizeof n);
  return n;
}

// The runtime's answer for one driver attribute (cudaFuncAttributes has a
// field for each).
CUresult attributeOf(const cudaFuncAttributes &a, int attribute, int *value) {
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = a.maxThreadsPerBlock;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value = int(a.sharedSizeBytes);
    break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *value = int(a.constSizeBytes);
    break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *value = int(a.localSizeBytes);
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = a.numRegs;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *value = a.ptxVersion;
    break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *value = a.binaryVersion;
    break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    *value = a.cacheModeCA;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = a.maxDynamicSharedSizeBytes;
    break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    *value = a.preferredShmemCarveout;
    break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    *value = a.clusterDimMustBeSet;
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    *value = a.requiredClusterWidth;
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    *value = a.requiredClusterHeight;
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    *value = a.requiredClusterDepth;
    break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    *value = a.nonPortableClusterSizeAllowed;
    break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    *value = a.clusterSchedulingPolicyPreference;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The block size with the most threads resident per multiprocessor (the
// largest such, stepping down a warp at a time from the largest the kernel
// and device allow), and the grid that fills the device with it; dynamic
// shared memory per block size from `smemFor` when given.
CUresult potentialBlockSize(int *minGridSize, int *blockSize, CUfunction f,
                            CUoccupancyB2DSize smemFor, size_t smem, int limit,
                            unsigned flags) {
  if (!minGridSize || !blockSize)
    return CUDA_ERROR_INVALID_VALUE;
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  int device = 0, maxThreadsPerSM = 0, warp = 0, deviceMax = 0, sms = 0;
  cudaFuncAttributes a;
  if (cudaError_t e = cudaGetDevice(&device))
    return fromRuntime(e);
  cudaDeviceGetAttribute(&maxThreadsPerSM,
                         cudaDevAttrMaxThreadsPerMultiProcessor, device);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
  cudaDeviceGetAttribute(&deviceMax, cudaDevAttrMaxThreadsPerBlock, device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (cudaError_t e = attributesOf(f, &a))
    return fromRuntime(e);
  if (warp <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (limit <= 0 || limit > deviceMax)
    limit = deviceMax;
  limit = std::min(limit, a.maxThreadsPerBlock);
  int best = 0, bestBlocks = 0, bestThreads = 0;
  for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0;
       aligned -= warp) {
    int size = std::min(limit, aligned);
    size_t dynamic = smemFor ? smemFor(size) : smem;
    int blocks = 0;
    if (cudaError_t e = occupancyOf(&blocks, f, size, dynamic, flags))
      return fromRuntime(e);
    if (blocks * size > bestThreads)
      best = size, bestBlocks = blocks, bestThreads = blocks * size;
    if (bestThreads == maxThreadsPerSM)
      break; // no block size fills more
  }
  *minGridSize = bestBlocks * sms;
  *blockSize = best;
  return CUDA_SUCCESS;
}

// cuOccupancyMaxActiveClusters / MaxPotentialClusterSize: the runtime's
// call for a build's kernel; a module's kernel is asked of the server by
// its function ID. Either way rc-server's driver answers.
CUresult clusterOccupancy(int *answer, CUfunction f,
                          const CUlaunchConfig *config, bool potentialSize) {
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!answer || !config || (config->numAttrs && !config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  if (isStub(f)) {
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(config->gridDimX, config->gridDimY, config->gridDimZ);
    c.blockDim = dim3(config->blockDimX, config->blockDimY, config->blockDimZ);
    c.dynamicSmemBytes = config->sharedMemBytes;
    c.stream = cudaStream_t(config->hStream);
    c.attrs = reinterpret_cast<cudaLaunchAttribute *>(config->attrs);
    c.numAttrs = config->numAttrs;
    return fromRuntime(
        potentialSize
            ? cudaOccupancyMaxPotentialClusterSize(answer, stubOf(f), &c)
            : cudaOccupancyMaxActiveClusters(answer, stubOf(f), &c));
  }
  const unsigned grid[3] = {config->gridDimX, config->gridDimY,
                            config->gridDimZ};
  const unsigned block[3] = {config->blockDimX, config->blockDimY,
                             config->blockDimZ};
  unsigned cluster[3] = {0, 0, 0};
  int policy = 0;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &a = config->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      cluster[0] = a.value.clusterDim.x;
      cluster[1] = a.value.clusterDim.y;
      cluster[2] = a.value.clusterDim.z;
    } else if (a.id ==
               CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
      policy = int(a.value.clusterSchedulingPolicyPreference);
    }
  }
  return fromRuntime(__rc_module_cluster_occupancy(
      answer, moduleId(f), potentialSize, grid, block, config->sharedMemBytes,
      cluster, policy));
}

} // namespace

extern "C" {

CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute,
                            CUfunction f) {
  if (!value || !f)
    return CUDA_ERROR_INVALID_VALUE;
  cudaFuncAttributes a;
  if (cudaError_t e = attributesOf(f, &a))
    return fromRuntime(e);
  return attributeOf(a, number(attribute), value);
}

// The settable attributes share their numbers with the runtime's.
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attribute,
                            int value) {
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!isStub(f))
    return moduleKernel("cuFuncSetAttribute");
  int n = number(attribute);
  if (n != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
      n != CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT &&
      n < CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)
    return CUDA_ERROR_INVALID_VALUE; // read-only
  return fromRuntime(
      cudaFuncSetAttribute(stubOf(f), cudaFuncAttribute(n), value));
}

CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache config) {
  if (!isStub(f))
    return f ? moduleKernel("cuFuncSetCacheConfig") : CUDA_ERROR_INVALID_HANDLE;
  int n;
  std::memcpy(&n, &config, sizeof n);
  return fromRuntime(cudaFuncSetCacheConfig(stubOf(f), cudaFuncCache(n)));
}

CUresult cuFuncSetSharedMemConfig(CUfunction f, CUsharedconfig config) {
  if (!isStub(f))
    return f ? moduleKernel("cuFuncSetSharedMemConfig")
             : CUDA_ERROR_INVALID_HANDLE;
  int n;
  std::memcpy(&n, &config, sizeof n);
  return fromRuntime(
      cudaFuncSetSharedMemConfig(stubOf(f), cudaSharedMemConfig(n)));
}

CUresult cuFuncGetName(const char **name, CUfunction f) {
  if (!name || !f)
    return CUDA_ERROR_INVALID_VALUE;
  if (!isStub(f)) {
    *name = rc::cu::moduleFunctionName(f);
    return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  }
  return fromRuntime(cudaFuncGetName(name, stubOf(f)));
}

CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset,
                            size_t *size) {
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!isStub(f))
    return moduleKernel("cuFuncGetParamInfo");
  return fromRuntime(cudaFuncGetParamInfo(stubOf(f), index, offset, size));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                     CUfunction f,
                                                     int blockSize,
                                                     size_t dynamicSmem) {
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  return fromRuntime(
      occupancyOf(numBlocks, f, blockSize, dynamicSmem, CU_OCCUPANCY_DEFAULT));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, CUfunction f, int blockSize, size_t dynamicSmem,
    unsigned int flags) {
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  return fromRuntime(occupancyOf(numBlocks, f, blockSize, dynamicSmem, flags));
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                          CUfunction f,
                                          CUoccupancyB2DSize smemFor,
                                          size_t dynamicSmem,
                                          int blockSizeLimit) {
  return potentialBlockSize(minGridSize, blockSize, f, smemFor, dynamicSmem,
                            blockSizeLimit, CU_OCCUPANCY_DEFAULT);
}

CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction f, CUoccupancyB2DSize smemFor,
    size_t dynamicSmem, int blockSizeLimit, unsigned int flags) {
  return potentialBlockSize(minGridSize, blockSize, f, smemFor, dynamicSmem,
                            blockSizeLimit, flags);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmem,
                                                 CUfunction f, int numBlocks,
                                                 int blockSize) {
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  return fromRuntime(isStub(f)
                         ? cudaOccupancyAvailableDynamicSMemPerBlock(
                               dynamicSmem, stubOf(f), numBlocks, blockSize)
                         : __rc_function_available_smem(
                               dynamicSmem, moduleId(f), numBlocks, blockSize));
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gridX, unsigned gridY,
                                   unsigned gridZ, unsigned blockX,
                                   unsigned blockY, unsigned blockZ,
                                   unsigned sharedMem, CUstream stream,
                                   void **params) {
  if (!isStub(f))
    return f ? moduleKernel("cuLaunchCooperativeKernel")
             : CUDA_ERROR_INVALID_HANDLE;
  return fromRuntime(cudaLaunchCooperativeKernel(
      stubOf(f), dim3(gridX, gridY, gridZ), dim3(blockX, blockY, blockZ),
      params, sharedMem, cudaStream_t(stream)));
}

// One cooperative launch per device, as the runtime's (build kernels).
CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *list,
                                              unsigned int numDevices,
                                              unsigned int flags) {
  if (!list || numDevices == 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<cudaLaunchParams> params(numDevices);
  for (unsigned i = 0; i < numDevices; ++i) {
    const CUDA_LAUNCH_PARAMS &p = list[i];
    if (!isStub(p.function))
      return p.function ? moduleKernel("cuLaunchCooperativeKernelMultiDevice")
                        : CUDA_ERROR_INVALID_HANDLE;
    params[i].func = const_cast<void *>(stubOf(p.function));
    params[i].gridDim = dim3(p.gridDimX, p.gridDimY, p.gridDimZ);
    params[i].blockDim = dim3(p.blockDimX, p.blockDimY, p.blockDimZ);
    params[i].sharedMem = p.sharedMemBytes;
    params[i].stream = cudaStream_t(p.hStream);
    params[i].args = p.kernelParams;
  }
  return fromRuntime(
      cudaLaunchCooperativeKernelMultiDevice(params.data(), numDevices, flags));
}

// The launch attributes are the runtime's under the driver's names
// (cu_alias_types.h proves the values the same).
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                          void **params, void **extra) {
  static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute) &&
                offsetof(CUlaunchAttribute, value) ==
                    offsetof(cudaLaunchAttribute, val));
  if (!config || !f || (config->numAttrs && !config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  if (!isStub(f)) {
    if (config->numAttrs)
      return moduleKernel("cuLaunchKernelEx with launch attributes");
    return cuLaunchKernel(
        f, config->gridDimX, config->gridDimY, config->gridDimZ,
        config->blockDimX, config->blockDimY, config->blockDimZ,
        config->sharedMemBytes, config->hStream, params, extra);
  }
  if (extra) {
    __rc_report_unsupported("cuLaunchKernelEx of a build's kernel with its "
                            "arguments in 'extra'",
                            "driver library");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  cudaLaunchConfig_t c;
  c.gridDim = dim3(config->gridDimX, config->gridDimY, config->gridDimZ);
  c.blockDim = dim3(config->blockDimX, config->blockDimY, config->blockDimZ);
  c.dynamicSmemBytes = config->sharedMemBytes;
  c.stream = cudaStream_t(config->hStream);
  c.attrs = reinterpret_cast<cudaLaunchAttribute *>(config->attrs);
  c.numAttrs = config->numAttrs;
  return fromRuntime(cudaLaunchKernelExC(&c, stubOf(f), params));
}

CUresult cuOccupancyMaxActiveClusters(int *numClusters, CUfunction f,
                                      const CUlaunchConfig *config) {
  return clusterOccupancy(numClusters, f, config, false);
}

CUresult cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction f,
                                            const CUlaunchConfig *config) {
  return clusterOccupancy(clusterSize, f, config, true);
}

} // extern "C"
