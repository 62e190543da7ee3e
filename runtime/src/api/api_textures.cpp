// Exported CUDA array, texture and surface calls (core/arrays.cpp).
#include "api/global.h"
#include "api/texture_descriptors.h"
#include "core/unsupported.h"

#include <string>

using rc::rt::record;
using rc::rt::Runtime;
using rc::rt::runtime;
using rc::rt::TextureDescriptors;

namespace {

cudaError_t toArray2D(cudaArray_t dst, size_t wOffset, size_t hOffset,
                      const void *src, size_t spitch, size_t width,
                      size_t height, cudaMemcpyKind kind, cudaStream_t stream,
                      const char *call) {
  Runtime::ArrayBox box;
  box.x = wOffset;
  box.y = hOffset;
  box.width = width;
  box.height = height;
  return record(runtime().arrays().arrayCopy(dst, box, true,
                                             const_cast<void *>(src), spitch,
                                             height, kind, stream, call));
}

cudaError_t fromArray2D(void *dst, size_t dpitch, cudaArray_const_t src,
                        size_t wOffset, size_t hOffset, size_t width,
                        size_t height, cudaMemcpyKind kind, cudaStream_t stream,
                        const char *call) {
  Runtime::ArrayBox box;
  box.x = wOffset;
  box.y = hOffset;
  box.width = width;
  box.height = height;
  return record(runtime().arrays().arrayCopy(src, box, false, dst, dpitch,
                                             height, kind, stream, call));
}

// Sparse and deferred-mapping arrays get their memory mapped in later
// (cuMemMapArrayAsync), which is not served: arrays are made whole.
cudaError_t wholeArray(unsigned flags, const char *call) {
  if (flags & (cudaArraySparse | cudaArrayDeferredMapping))
    return rc::rt::reportUnsupported((std::string(call) +
                                      " with cudaArraySparse or "
                                      "cudaArrayDeferredMapping")
                                         .c_str());
  return cudaSuccess;
}

} // namespace

extern "C" {

// A value, computed here: what the channel_descriptor.h templates call.
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                            cudaChannelFormatKind f) {
  cudaChannelFormatDesc d;
  d.x = x;
  d.y = y;
  d.z = z;
  d.w = w;
  d.f = f;
  return d;
}

cudaError_t cudaMallocArray(cudaArray_t *array,
                            const cudaChannelFormatDesc *desc, size_t width,
                            size_t height, unsigned int flags) {
  if (cudaError_t err = wholeArray(flags, "cudaMallocArray"))
    return record(err);
  return record(runtime().arrays().arrayCreate(
      array, desc, cudaExtent{width, height, 0}, flags));
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array,
                              const cudaChannelFormatDesc *desc,
                              cudaExtent extent, unsigned int flags) {
  if (cudaError_t err = wholeArray(flags, "cudaMalloc3DArray"))
    return record(err);
  return record(runtime().arrays().arrayCreate(array, desc, extent, flags));
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  return record(runtime().arrays().arrayFree(array));
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent,
                             unsigned int *flags, cudaArray_t array) {
  return record(runtime().arrays().arrayInfo(array, desc, extent, flags));
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc,
                               cudaArray_const_t array) {
  if (!desc)
    return record(cudaErrorInvalidValue);
  return record(runtime().arrays().arrayInfo(array, desc, nullptr, nullptr));
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                const void *src, size_t spitch, size_t width,
                                size_t height, cudaMemcpyKind kind) {
  return toArray2D(dst, wOffset, hOffset, src, spitch, width, height, kind,
                   nullptr, "cudaMemcpy2DToArray");
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset,
                                     size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t stream) {
  return toArray2D(dst, wOffset, hOffset, src, spitch, width, height, kind,
                   stream, "cudaMemcpy2DToArrayAsync");
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch,
                                  cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height,
                                  cudaMemcpyKind kind) {
  return fromArray2D(dst, dpitch, src, wOffset, hOffset, width, height, kind,
                     nullptr, "cudaMemcpy2DFromArray");
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch,
                                       cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width,
                                       size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream) {
  return fromArray2D(dst, dpitch, src, wOffset, hOffset, width, height, kind,
                     stream, "cudaMemcpy2DFromArrayAsync");
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                              const void *src, size_t count,
                              cudaMemcpyKind kind) {
  return record(runtime().arrays().arrayCopyLinear(
      dst, wOffset, hOffset, true, const_cast<void *>(src), count, kind,
      nullptr, "cudaMemcpyToArray"));
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset,
                                   size_t hOffset, const void *src,
                                   size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  return record(runtime().arrays().arrayCopyLinear(
      dst, wOffset, hOffset, true, const_cast<void *>(src), count, kind, stream,
      "cudaMemcpyToArrayAsync"));
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src,
                                size_t wOffset, size_t hOffset, size_t count,
                                cudaMemcpyKind kind) {
  return record(runtime().arrays().arrayCopyLinear(src, wOffset, hOffset, false,
                                                   dst, count, kind, nullptr,
                                                   "cudaMemcpyFromArray"));
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src,
                                     size_t wOffset, size_t hOffset,
                                     size_t count, cudaMemcpyKind kind,
                                     cudaStream_t stream) {
  return record(runtime().arrays().arrayCopyLinear(src, wOffset, hOffset, false,
                                                   dst, count, kind, stream,
                                                   "cudaMemcpyFromArrayAsync"));
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texObject,
                                    const cudaResourceDesc *resDesc,
                                    const cudaTextureDesc *texDesc,
                                    const cudaResourceViewDesc *resViewDesc) {
  if (!texObject)
    return record(cudaErrorInvalidValue);
  uint64_t handle = 0;
  cudaError_t err = runtime().arrays().textureCreate(&handle, resDesc, texDesc,
                                                     resViewDesc, false);
  if (err == cudaSuccess) {
    *texObject = handle;
    TextureDescriptors::instance().made(handle, false, *resDesc, texDesc);
  }
  return record(err);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  cudaError_t err = runtime().arrays().textureDestroy(texObject, false);
  if (err == cudaSuccess)
    TextureDescriptors::instance().destroyed(texObject, false);
  return record(err);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surfObject,
                                    const cudaResourceDesc *resDesc) {
  if (!surfObject)
    return record(cudaErrorInvalidValue);
  uint64_t handle = 0;
  cudaError_t err = runtime().arrays().textureCreate(&handle, resDesc, nullptr,
                                                     nullptr, true);
  if (err == cudaSuccess) {
    *surfObject = handle;
    TextureDescriptors::instance().made(handle, true, *resDesc, nullptr);
  }
  return record(err);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  cudaError_t err = runtime().arrays().textureDestroy(surfObject, true);
  if (err == cudaSuccess)
    TextureDescriptors::instance().destroyed(surfObject, true);
  return record(err);
}

// ---- what an object was made from (api/texture_descriptors.h) ----------

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *resDesc,
                                             cudaTextureObject_t texObject) {
  if (!resDesc)
    return record(cudaErrorInvalidValue);
  return record(
      TextureDescriptors::instance().resource(texObject, false, resDesc)
          ? cudaSuccess
          : cudaErrorInvalidValue);
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *texDesc,
                                            cudaTextureObject_t texObject) {
  if (!texDesc)
    return record(cudaErrorInvalidValue);
  return record(TextureDescriptors::instance().texture(texObject, texDesc)
                    ? cudaSuccess
                    : cudaErrorInvalidValue);
}

// Objects are made without resource views (a view is refused by name), and
// CUDA answers an object without one with cudaErrorInvalidValue.
cudaError_t
cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc *resViewDesc,
                                     cudaTextureObject_t texObject) {
  cudaTextureDesc ignored;
  if (!resViewDesc ||
      !TextureDescriptors::instance().texture(texObject, &ignored))
    return record(cudaErrorInvalidValue);
  return record(cudaErrorInvalidValue);
}

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *resDesc,
                                             cudaSurfaceObject_t surfObject) {
  if (!resDesc)
    return record(cudaErrorInvalidValue);
  return record(
      TextureDescriptors::instance().resource(surfObject, true, resDesc)
          ? cudaSuccess
          : cudaErrorInvalidValue);
}

// No array here is sparse or has its memory mapped later (wholeArray):
// CUDA answers such arrays with cudaErrorInvalidValue.
cudaError_t cudaArrayGetSparseProperties(cudaArraySparseProperties *props,
                                         cudaArray_t array) {
  cudaChannelFormatDesc desc;
  if (!props)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err =
          runtime().arrays().arrayInfo(array, &desc, nullptr, nullptr))
    return record(err);
  return record(cudaErrorInvalidValue);
}

cudaError_t
cudaArrayGetMemoryRequirements(cudaArrayMemoryRequirements *requirements,
                               cudaArray_t array, int device) {
  cudaChannelFormatDesc desc;
  int count = 0;
  if (!requirements)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = runtime().deviceCount(&count))
    return record(err);
  if (device < 0 || device >= count)
    return record(cudaErrorInvalidDevice);
  if (cudaError_t err =
          runtime().arrays().arrayInfo(array, &desc, nullptr, nullptr))
    return record(err);
  return record(cudaErrorInvalidValue);
}

// Only multi-planar formats (NV12) have planes, and arrays of them are not
// made here: every array answers as CUDA's single-plane arrays do.
cudaError_t cudaArrayGetPlane(cudaArray_t *plane, cudaArray_t array,
                              unsigned int planeIdx) {
  cudaChannelFormatDesc desc;
  if (!plane)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err =
          runtime().arrays().arrayInfo(array, &desc, nullptr, nullptr))
    return record(err);
  (void)planeIdx;
  return record(cudaErrorInvalidValue);
}

} // extern "C"
