// librc_cuda.so: the driver-API calls applications make directly. Device
// queries reuse the runtime's handshake snapshot through the exported
// runtime API (the runtime's attribute numbering equals CUdevice_attribute's).
#include "cu_result.h"

#include <cuda.h>
#include <cudaProfiler.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <cstring>

using rc::cu::fromRuntime;

extern "C" {

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count))
    return fromRuntime(e);
  if (ordinal < 0 || ordinal >= count)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr,
                              CUdevice device) {
  return fromRuntime(
      cudaDeviceGetAttribute(value, cudaDeviceAttr(int(attr)), device));
}

CUresult cuDriverGetVersion(int *version) {
  return fromRuntime(cudaDriverGetVersion(version));
}

// Profile collection by a profiler attached to rc-server, as the runtime's.
CUresult cuProfilerStart(void) { return fromRuntime(cudaProfilerStart()); }
CUresult cuProfilerStop(void) { return fromRuntime(cudaProfilerStop()); }

// The current context's limits: the runtime's, as rc-server keeps one
// context per device and session.
CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  return fromRuntime(cudaDeviceSetLimit(cudaLimit(int(limit)), value));
}
CUresult cuCtxGetLimit(size_t *value, CUlimit limit) {
  return fromRuntime(cudaDeviceGetLimit(value, cudaLimit(int(limit))));
}

CUresult cuGetErrorString(CUresult error, const char **str) {
  if (!str)
    return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
  case CUDA_SUCCESS:
    *str = "no error";
    break;
  case CUDA_ERROR_INVALID_VALUE:
    *str = "invalid argument";
    break;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "out of memory";
    break;
  case CUDA_ERROR_NOT_INITIALIZED:
    *str = "initialization error";
    break;
  case CUDA_ERROR_NO_DEVICE:
    *str = "no CUDA-capable device is detected";
    break;
  case CUDA_ERROR_INVALID_DEVICE:
    *str = "invalid device ordinal";
    break;
  case CUDA_ERROR_NOT_SUPPORTED:
    *str = "operation not supported";
    break;
  case CUDA_ERROR_UNKNOWN:
    *str = "unknown error";
    break;
  default:
    // Same numbering: the runtime's text names the same condition.
    *str = cudaGetErrorString(cudaError_t(int(error)));
    if (!*str || std::strcmp(*str, "unrecognized error code") == 0) {
      *str = nullptr;
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

} // extern "C"
