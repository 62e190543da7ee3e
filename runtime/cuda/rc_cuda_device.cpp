// Driver-API initialization, device queries and error names (deviceQueryDrv
// and the first calls of every driver-API program): answered from the
// runtime's handshake snapshot through the exported runtime API, like
// cuDeviceGetAttribute (rc_cuda.cpp). cuInit connects, as the runtime's
// first call does, so a missing server shows at cuInit.
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cctype>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

using rc::cu::fromRuntime;

namespace {

CUresult properties(cudaDeviceProp *p, CUdevice device) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count))
    return fromRuntime(e);
  if (device < 0 || device >= count)
    return CUDA_ERROR_INVALID_DEVICE;
  return fromRuntime(cudaGetDeviceProperties(p, device));
}

// The driver's name of a code: the runtime's for the same number, in the
// driver's spelling (cudaErrorInvalidValue -> CUDA_ERROR_INVALID_VALUE),
// except where the two APIs name the condition differently.
const char *driverName(int error) {
  switch (error) {
  case CUDA_SUCCESS:
    return "CUDA_SUCCESS";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "CUDA_ERROR_NOT_INITIALIZED";
  default:
    break;
  }
  const char *runtimeName = cudaGetErrorName(cudaError_t(error));
  const char *prefix = "cudaError";
  bool unknownNumber = runtimeName &&
                       std::strcmp(runtimeName, "cudaErrorUnknown") == 0 &&
                       error != CUDA_ERROR_UNKNOWN;
  if (!runtimeName || std::strncmp(runtimeName, prefix, 9) != 0 ||
      unknownNumber)
    return nullptr;
  static std::mutex mu;
  static std::map<int, std::string> names; // kept: callers hold the pointer
  std::lock_guard<std::mutex> lock(mu);
  std::string &name = names[error];
  if (name.empty()) {
    name = "CUDA_ERROR";
    for (const char *c = runtimeName + 9; *c; ++c) {
      if (std::isupper(static_cast<unsigned char>(*c)))
        name += '_';
      name += char(std::toupper(static_cast<unsigned char>(*c)));
    }
  }
  return name.c_str();
}

} // namespace

extern "C" {

CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  int count = 0;
  return fromRuntime(cudaGetDeviceCount(&count));
}

CUresult cuDeviceGetCount(int *count) {
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(cudaGetDeviceCount(count));
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(&p, device))
    return r;
  std::strncpy(name, p.name, size_t(len) - 1);
  name[len - 1] = '\0';
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device) {
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(&p, device))
    return r;
  *bytes = p.totalGlobalMem;
  return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice device) {
  if (!major || !minor)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(&p, device))
    return r;
  *major = p.major;
  *minor = p.minor;
  return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *canAccess, CUdevice device, CUdevice peer) {
  return fromRuntime(cudaDeviceCanAccessPeer(canAccess, device, peer));
}

// rc-server keeps one context per device and session, and the runtime's
// current device is the current context's.
CUresult cuCtxGetDevice(CUdevice *device) {
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  int d = 0;
  if (cudaError_t e = cudaGetDevice(&d))
    return fromRuntime(e);
  *device = d;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **str) {
  if (!str)
    return CUDA_ERROR_INVALID_VALUE;
  // Read as a number: a program may pass one that is no CUresult.
  int number;
  std::memcpy(&number, &error, sizeof number);
  *str = driverName(number);
  return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

} // extern "C"
