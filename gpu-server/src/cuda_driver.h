// The CUDA driver entry points rc-server uses, resolved at run time from
// libcuda.so.1 through cuGetProcAddress. Each is requested with the exact
// CUDA version whose signature is written below (the PFN_<name>_v<version>
// typedefs of cudaTypedefs.h): CUDA 13 changed several entry points, e.g.
// cuCtxCreate (v12050 takes CUctxCreateParams) and cuCtxSynchronize (v13000
// takes a context), so asking for "the newest" would call the wrong ABI.
#ifndef RC_SERVER_CUDA_DRIVER_H
#define RC_SERVER_CUDA_DRIVER_H

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
  X(cuCtxSynchronize, 2000, (void))                                            \
  X(cuLibraryLoadData, 12000,                                                  \
    (CUlibrary *, const void *, CUjit_option *, void **, unsigned int,         \
     CUlibraryOption *, void **, unsigned int))                                \
  X(cuLibraryUnload, 12000, (CUlibrary))                                       \
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
  X(cuMemcpyHtoDAsync, 3020, (CUdeviceptr, const void *, size_t, CUstream))    \
  X(cuMemcpyDtoHAsync, 3020, (void *, CUdeviceptr, size_t, CUstream))          \
  X(cuMemcpyDtoDAsync, 3020, (CUdeviceptr, CUdeviceptr, size_t, CUstream))     \
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
  X(cuGetErrorString, 6000, (CUresult, const char **))

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

private:
  void *library_ = nullptr;
};

} // namespace rc::server

#endif
