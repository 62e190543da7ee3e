// The CUDA driver entry points rc-server uses, resolved at run time from
// libcuda.so.1 through cuGetProcAddress. Each is requested with the exact
// CUDA version whose signature is written below (the PFN_<name>_v<version>
// typedefs of cudaTypedefs.h): CUDA 13 changed several entry points, e.g.
// cuCtxCreate (v12050 takes CUctxCreateParams) and cuCtxSynchronize (v13000
// takes a context), so asking for "the newest" would call the wrong ABI.
#ifndef RC_SERVER_CUDA_DRIVER_H
#define RC_SERVER_CUDA_DRIVER_H

#include "rc/server/backend.h"

#include <cuda.h>

#include <string>

namespace rc::server {

// X(name, version, return-less parameter list)
#define RC_CUDA_ENTRY_POINTS(X)                                                \
  X(cuInit, 2000, (unsigned int))                                              \
  X(cuDriverGetVersion, 2020, (int *))                                         \
  X(cuDeviceGetCount, 2000, (int *))                                           \
  X(cuDeviceGet, 2000, (CUdevice *, int))                                      \
  X(cuDeviceGetName, 2000, (char *, int, CUdevice))                            \
  X(cuDeviceTotalMem, 3020, (size_t *, CUdevice))                              \
  X(cuDeviceGetUuid, 11040, (CUuuid *, CUdevice))                              \
  X(cuDeviceGetAttribute, 2000, (int *, CUdevice_attribute, CUdevice))         \
  X(cuCtxCreate, 3020, (CUcontext *, unsigned int, CUdevice))                  \
  X(cuCtxDestroy, 4000, (CUcontext))                                           \
  X(cuCtxSetCurrent, 4000, (CUcontext))                                        \
  X(cuCtxGetCurrent, 4000, (CUcontext *))                                      \
  X(cuCtxSynchronize, 2000, (void))                                            \
  X(cuCtxEnablePeerAccess, 4000, (CUcontext, unsigned int))                    \
  X(cuCtxDisablePeerAccess, 4000, (CUcontext))                                 \
  X(cuProfilerStart, 4000, ())                                                 \
  X(cuCtxSetLimit, 3010, (CUlimit, size_t))                                    \
  X(cuCtxGetLimit, 3010, (size_t *, CUlimit))                                  \
  X(cuProfilerStop, 4000, ())                                                  \
  X(cuDeviceCanAccessPeer, 4000, (int *, CUdevice, CUdevice))                  \
  X(cuLibraryLoadData, 12000,                                                  \
    (CUlibrary *, const void *, CUjit_option *, void **, unsigned int,         \
     CUlibraryOption *, void **, unsigned int))                                \
  X(cuLibraryUnload, 12000, (CUlibrary))                                       \
  X(cuKernelGetParamInfo, 12040, (CUkernel, size_t, size_t *, size_t *))       \
  X(cuLibraryGetModule, 12000, (CUmodule *, CUlibrary))                        \
  X(cuLibraryGetKernel, 12000, (CUkernel *, CUlibrary, const char *))          \
  X(cuLibraryGetGlobal, 12000,                                                 \
    (CUdeviceptr *, size_t *, CUlibrary, const char *))                        \
  X(cuLaunchKernel, 4000,                                                      \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,       \
     unsigned int, unsigned int, unsigned int, CUstream, void **, void **))    \
  X(cuMemAlloc, 3020, (CUdeviceptr *, size_t))                                 \
  X(cuMemFree, 3020, (CUdeviceptr))                                            \
  X(cuMemHostAlloc, 2020, (void **, size_t, unsigned int))                     \
  X(cuMemFreeHost, 2000, (void *))                                             \
  X(cuMemHostRegister, 6050, (void *, size_t, unsigned int))                   \
  X(cuMemHostUnregister, 4000, (void *))                                       \
  X(cuMemcpyHtoDAsync, 3020, (CUdeviceptr, const void *, size_t, CUstream))    \
  X(cuMemcpyDtoHAsync, 3020, (void *, CUdeviceptr, size_t, CUstream))          \
  X(cuMemcpyDtoDAsync, 3020, (CUdeviceptr, CUdeviceptr, size_t, CUstream))     \
  X(cuMemcpyPeerAsync, 4000,                                                   \
    (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))        \
  X(cuMemsetD8Async, 3020, (CUdeviceptr, unsigned char, size_t, CUstream))     \
  X(cuStreamCreateWithPriority, 5050, (CUstream *, unsigned int, int))         \
  X(cuStreamDestroy, 4000, (CUstream))                                         \
  X(cuStreamSynchronize, 2000, (CUstream))                                     \
  X(cuStreamQuery, 2000, (CUstream))                                           \
  X(cuStreamWaitEvent, 3020, (CUstream, CUevent, unsigned int))                \
  X(cuEventCreate, 2000, (CUevent *, unsigned int))                            \
  X(cuEventDestroy, 4000, (CUevent))                                           \
  X(cuEventRecord, 2000, (CUevent, CUstream))                                  \
  X(cuEventSynchronize, 2000, (CUevent))                                       \
  X(cuEventQuery, 2000, (CUevent))                                             \
  X(cuEventElapsedTime, 2000, (float *, CUevent, CUevent))                     \
  X(cuGetErrorName, 6000, (CUresult, const char **))                           \
  X(cuGetErrorString, 6000, (CUresult, const char **))                         \
  X(cuKernelGetAttribute, 12000,                                               \
    (int *, CUfunction_attribute, CUkernel, CUdevice))                         \
  X(cuKernelSetAttribute, 12000,                                               \
    (CUfunction_attribute, int, CUkernel, CUdevice))                           \
  X(cuLaunchKernelEx, 11060,                                                   \
    (const CUlaunchConfig *, CUfunction, void **, void **))                    \
  X(cuMemAddressReserve, 10020,                                                \
    (CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long))          \
  X(cuMemAddressFree, 10020, (CUdeviceptr, size_t))                            \
  X(cuMemCreate, 10020,                                                        \
    (CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,      \
     unsigned long long))                                                      \
  X(cuMemRelease, 10020, (CUmemGenericAllocationHandle))                       \
  X(cuMemGetAllocationPropertiesFromHandle, 10020,                             \
    (CUmemAllocationProp *, CUmemGenericAllocationHandle))                     \
  X(cuMemMap, 10020,                                                           \
    (CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,                \
     unsigned long long))                                                      \
  X(cuMemUnmap, 10020, (CUdeviceptr, size_t))                                  \
  X(cuMemSetAccess, 10020,                                                     \
    (CUdeviceptr, size_t, const CUmemAccessDesc *, size_t))                    \
  X(cuStreamBeginCapture, 10010, (CUstream, CUstreamCaptureMode))              \
  X(cuStreamEndCapture, 10000, (CUstream, CUgraph *))                          \
  X(cuStreamGetCaptureInfo, 12030,                                             \
    (CUstream, CUstreamCaptureStatus *, cuuint64_t *, CUgraph *,               \
     const CUgraphNode **, const CUgraphEdgeData **, size_t *))                \
  X(cuGraphInstantiateWithFlags, 11040,                                        \
    (CUgraphExec *, CUgraph, unsigned long long))                              \
  X(cuGraphLaunch, 10000, (CUgraphExec, CUstream))                             \
  X(cuGraphExecKernelNodeSetParams, 12000,                                     \
    (CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v2 *))            \
  X(cuGraphExecMemsetNodeSetParams, 10020,                                     \
    (CUgraphExec, CUgraphNode, const CUDA_MEMSET_NODE_PARAMS_v1 *, CUcontext)) \
  X(cuGraphExecMemcpyNodeSetParams, 10020,                                     \
    (CUgraphExec, CUgraphNode, const CUDA_MEMCPY3D_v2 *, CUcontext))           \
  X(cuGraphExecDestroy, 10000, (CUgraphExec))                                  \
  X(cuGraphDestroy, 10000, (CUgraph))                                          \
  X(cuArray3DCreate, 3020, (CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *))       \
  X(cuArrayDestroy, 2000, (CUarray))                                           \
  X(cuMemcpy3DAsync, 3020, (const CUDA_MEMCPY3D *, CUstream))                  \
  X(cuTexObjectCreate, 5000,                                                   \
    (CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *,     \
     const CUDA_RESOURCE_VIEW_DESC *))                                         \
  X(cuTexObjectDestroy, 5000, (CUtexObject))                                   \
  X(cuSurfObjectCreate, 5000, (CUsurfObject *, const CUDA_RESOURCE_DESC *))    \
  X(cuSurfObjectDestroy, 5000, (CUsurfObject))                                 \
  X(cuStreamSetAttribute, 11000,                                               \
    (CUstream, CUstreamAttrID, const CUstreamAttrValue *))                     \
  X(cuCtxResetPersistingL2Cache, 11000, ())                                    \
  X(cuDeviceGetTexture1DLinearMaxWidth, 11010,                                 \
    (size_t *, CUarray_format, unsigned, CUdevice))                            \
  X(cuOccupancyMaxActiveClusters, 11070,                                       \
    (int *, CUfunction, const CUlaunchConfig *))                               \
  X(cuOccupancyMaxPotentialClusterSize, 11070,                                 \
    (int *, CUfunction, const CUlaunchConfig *))

// The CUstream of a backend stream handle (rc/server/backend.h).
inline CUstream cudaStreamOf(NativeHandle handle) {
  if (handle == 0)
    return nullptr; // legacy default stream (entry points resolved LEGACY)
  if (handle == kPerThreadStream)
    return CU_STREAM_PER_THREAD;
  return reinterpret_cast<CUstream>(handle);
}

struct CudaDriver {
#define RC_DECLARE(name, version, params)                                      \
  CUresult(CUDAAPI *name) params = nullptr;
  RC_CUDA_ENTRY_POINTS(RC_DECLARE)
#undef RC_DECLARE

  // dlopens libcuda.so.1 and resolves every entry point; false + *error
  // naming the library or the first missing symbol.
  bool load(std::string *error);
  // "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
  std::string describe(CUresult r) const;
  // Success, or the cudaError_t for `r` with describe()'s words.
  OpStatus status(CUresult r) const;

private:
  void *library_ = nullptr;
};

} // namespace rc::server

#endif
