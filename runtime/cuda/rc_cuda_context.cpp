// librc_cuda's context, device identity and stream callback calls: a
// CUcontext names a device (cu_context.h), whose settings are the
// runtime's per device (api/device_settings.h), and a device's identity
// comes with the handshake's snapshot of its properties.
#include "cu_context.h"
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cstring>

extern "C" int __rc_stream_device(cudaStream_t stream, int *device);

using rc::cu::contextOf;
using rc::cu::deviceOf;
using rc::cu::fromRuntime;

namespace {

// `ctx`, or the current context when it is null.
CUresult deviceOrCurrent(CUcontext ctx, int *device) {
  if (ctx)
    return deviceOf(ctx, device);
  return fromRuntime(cudaGetDevice(device));
}

CUresult checkDevice(CUdevice device) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count))
    return fromRuntime(e);
  return device >= 0 && device < count ? CUDA_SUCCESS
                                       : CUDA_ERROR_INVALID_DEVICE;
}

// Runs `call` with `device` current, as the runtime's per-device calls
// need, and makes the caller's device current again.
template <class Call> CUresult onDevice(CUdevice device, Call call) {
  if (CUresult r = checkDevice(device))
    return r;
  int before = 0;
  cudaGetDevice(&before);
  cudaSetDevice(device);
  cudaError_t e = call();
  cudaSetDevice(before);
  return fromRuntime(e);
}

int clampToInt(size_t v) { return int(std::min<size_t>(v, INT_MAX)); }

// What a stream callback of the driver is handed, called through the
// runtime's (which runs it before cudaStreamAddCallback returns).
struct Callback {
  CUstreamCallback fn;
  void *userData;
};
void CUDART_CB runCallback(cudaStream_t stream, cudaError_t status,
                           void *data) {
  auto *c = static_cast<Callback *>(data);
  c->fn(CUstream(stream), rc::cu::fromRuntime(status), c->userData);
}

} // namespace

extern "C" {

// Every context here is made as cuCtxCreate_v2 makes one: API 3020.
CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  int device = 0;
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = deviceOrCurrent(ctx, &device))
    return r;
  *version = 3020;
  return CUDA_SUCCESS;
}

// The context's flags are its device's (CU_CTX_* share their bits with
// cudaDevice*).
CUresult cuCtxGetFlags(unsigned int *flags) {
  return fromRuntime(cudaGetDeviceFlags(flags));
}
CUresult cuCtxSetFlags(unsigned int flags) {
  return fromRuntime(cudaSetDeviceFlags(flags));
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id) {
  int device = 0;
  if (!id)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = deviceOrCurrent(ctx, &device))
    return r;
  *id = static_cast<unsigned long long>(device) + 1;
  return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  int device = 0;
  if (flags)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = deviceOf(peer, &device))
    return r;
  return fromRuntime(cudaDeviceEnablePeerAccess(device, 0));
}

CUresult cuCtxDisablePeerAccess(CUcontext peer) {
  int device = 0;
  if (CUresult r = deviceOf(peer, &device))
    return r;
  return fromRuntime(cudaDeviceDisablePeerAccess(device));
}

// The session's context of every device is active from the handshake on.
CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned int *flags,
                                    int *active) {
  if (!flags || !active)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = onDevice(device, [&] { return cudaGetDeviceFlags(flags); });
  *active = r == CUDA_SUCCESS;
  return r;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned int flags) {
  return fromRuntime(
      cudaInitDevice(device, flags, cudaInitDeviceFlagsAreValid));
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  return onDevice(device, [] { return cudaDeviceReset(); });
}

// A stream's context is its device's: the one it was created on.
CUresult cuStreamGetCtx(CUstream stream, CUcontext *ctx) {
  int device = 0;
  if (!ctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (!__rc_stream_device(cudaStream_t(stream), &device))
    return CUDA_ERROR_INVALID_HANDLE;
  *ctx = contextOf(device);
  return CUDA_SUCCESS;
}

CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback fn,
                             void *userData, unsigned int flags) {
  if (!fn)
    return CUDA_ERROR_INVALID_VALUE;
  Callback c{fn, userData};
  return fromRuntime(
      cudaStreamAddCallback(cudaStream_t(stream), runCallback, &c, flags));
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice device) {
  cudaDeviceProp p;
  if (!uuid)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = checkDevice(device))
    return r;
  if (cudaError_t e = cudaGetDeviceProperties(&p, device))
    return fromRuntime(e);
  static_assert(sizeof uuid->bytes == sizeof p.uuid.bytes);
  std::memcpy(uuid->bytes, p.uuid.bytes, sizeof uuid->bytes);
  return CUDA_SUCCESS;
}

// The same UUID: _v2 differs only for MIG instances, which a session's
// devices are not told apart by.
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice device) {
  return cuDeviceGetUuid(uuid, device);
}

// The deprecated properties struct, from the same snapshot.
CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice device) {
  cudaDeviceProp p;
  if (!prop)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = checkDevice(device))
    return r;
  if (cudaError_t e = cudaGetDeviceProperties(&p, device))
    return fromRuntime(e);
  prop->maxThreadsPerBlock = p.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = p.maxThreadsDim[i];
    prop->maxGridSize[i] = p.maxGridSize[i];
  }
  prop->sharedMemPerBlock = clampToInt(p.sharedMemPerBlock);
  prop->totalConstantMemory = clampToInt(p.totalConstMem);
  prop->SIMDWidth = p.warpSize;
  prop->memPitch = clampToInt(p.memPitch);
  prop->regsPerBlock = p.regsPerBlock;
  prop->clockRate = p.clockRate;
  prop->textureAlign = clampToInt(p.textureAlignment);
  return CUDA_SUCCESS;
}

} // extern "C"
