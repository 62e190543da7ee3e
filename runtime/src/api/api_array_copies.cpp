// Copies between two CUDA arrays and between devices in 3D: between
// arrays through device memory (core/array_to_array.h); between devices as
// the device-to-device copy every peer copy is here (runtime_copy2d.cpp).
#include "api/global.h"
#include "core/array_to_array.h"

using rc::rt::record;
using rc::rt::Runtime;
using rc::rt::runtime;

namespace {

cudaError_t checkDevice(int device) {
  int count = 0;
  if (cudaError_t err = runtime().deviceCount(&count))
    return err;
  return device >= 0 && device < count ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t copy3DPeer(const cudaMemcpy3DPeerParms *p, cudaStream_t stream,
                       bool async) {
  if (!p)
    return cudaErrorInvalidValue;
  if (cudaError_t err = checkDevice(p->srcDevice))
    return err;
  if (cudaError_t err = checkDevice(p->dstDevice))
    return err;
  cudaMemcpy3DParms q = {};
  q.srcArray = p->srcArray;
  q.srcPos = p->srcPos;
  q.srcPtr = p->srcPtr;
  q.dstArray = p->dstArray;
  q.dstPos = p->dstPos;
  q.dstPtr = p->dstPtr;
  q.extent = p->extent;
  q.kind = cudaMemcpyDeviceToDevice;
  return runtime().memcpy3D(&q, stream, async);
}

} // namespace

extern "C" {

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst,
                                     size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height,
                                     cudaMemcpyKind kind) {
  Runtime::ArrayBox box;
  box.x = wOffsetSrc;
  box.y = hOffsetSrc;
  box.width = width;
  box.height = height;
  return record(rc::rt::copyArrayToArray(runtime(), dst, wOffsetDst, hOffsetDst,
                                         0, src, box, kind, nullptr,
                                         "cudaMemcpy2DArrayToArray"));
}

cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst,
                                   size_t hOffsetDst, cudaArray_const_t src,
                                   size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t count, cudaMemcpyKind kind) {
  return record(rc::rt::copyArrayToArrayLinear(
      runtime(), dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc,
      count, kind, nullptr, "cudaMemcpyArrayToArray"));
}

cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms *p) {
  return record(copy3DPeer(p, nullptr, false));
}

cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms *p,
                                  cudaStream_t stream) {
  return record(copy3DPeer(p, stream, true));
}

} // extern "C"
