// Contexts of librc_cuda: rc-server keeps one context per device and
// session, and the runtime's current device is the current context's, so
// a CUcontext names a device (device + 1, so that device 0 is not null).
#ifndef RC_CUDA_CU_CONTEXT_H
#define RC_CUDA_CU_CONTEXT_H

#include "core/handle.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace rc::cu {

inline CUcontext contextOf(CUdevice device) {
  return rc::rt::toHandle<CUcontext>(uint64_t(device) + 1);
}

// The device `ctx` names; CUDA_ERROR_INVALID_CONTEXT for none.
inline CUresult deviceOf(CUcontext ctx, int *device) {
  int count = 0;
  if (!ctx || cudaGetDeviceCount(&count) != cudaSuccess)
    return CUDA_ERROR_INVALID_CONTEXT;
  uint64_t id = rc::rt::handleId(ctx);
  if (id < 1 || id > uint64_t(count))
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = int(id - 1);
  return CUDA_SUCCESS;
}

inline void *ptr(CUdeviceptr p) {
  return reinterpret_cast<void *>(uintptr_t(p));
}

} // namespace rc::cu

#endif
