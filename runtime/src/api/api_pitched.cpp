// Exported pitched-memory calls (runtime_pitched.cpp).
#include "api/global.h"

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
                            size_t height) {
  return record(runtime().mallocPitch(devPtr, pitch, width, height));
}

cudaError_t cudaMalloc3D(cudaPitchedPtr *pitchedDevPtr, cudaExtent extent) {
  if (!pitchedDevPtr)
    return record(cudaErrorInvalidValue);
  size_t pitch = 0;
  void *p = nullptr;
  cudaError_t err = runtime().mallocPitch(&p, &pitch, extent.width,
                                          extent.height * extent.depth);
  if (err == cudaSuccess)
    *pitchedDevPtr = cudaPitchedPtr{p, pitch, extent.width, extent.height};
  return record(err);
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                         size_t height) {
  return record(
      runtime().memset2D(devPtr, pitch, value, width, height, nullptr));
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value,
                              size_t width, size_t height,
                              cudaStream_t stream) {
  return record(
      runtime().memset2D(devPtr, pitch, value, width, height, stream));
}

cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value,
                         cudaExtent extent) {
  return record(runtime().memset3D(pitchedDevPtr, value, extent, nullptr));
}

cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value,
                              cudaExtent extent, cudaStream_t stream) {
  return record(runtime().memset3D(pitchedDevPtr, value, extent, stream));
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  return record(runtime().memcpy3D(p, nullptr, false));
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  return record(runtime().memcpy3D(p, stream, true));
}

} // extern "C"
