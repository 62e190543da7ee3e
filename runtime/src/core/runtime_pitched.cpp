// Pitched linear memory: cudaMallocPitch / cudaMalloc3D, cudaMemset2D / 3D
// and cudaMemcpy3D between pitched pointers, all built on the runtime's
// allocation, memset and 2D copy (no wire command of their own).
// cudaMemcpy3D with a CUDA array goes to the array copy
// (arrays.cpp), between two through device memory
// (core/array_to_array.h).
#include "core/runtime.h"

#include "core/array_to_array.h"
#include "core/unsupported.h"
#include "rc/channel_format.h"

namespace rc::rt {

namespace {
// What cudaMallocPitch returns on current NVIDIA GPUs: rows start on
// 512-byte boundaries. Any pitch >= width is correct for programs, which
// must use the one returned.
constexpr size_t kPitchAlignment = 512;
} // namespace

cudaError_t Runtime::mallocPitch(void **ptr, size_t *pitch, size_t width,
                                 size_t height) {
  if (!ptr || !pitch)
    return cudaErrorInvalidValue;
  size_t rowBytes =
             (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment,
         total;
  if (rowBytes < width || __builtin_mul_overflow(rowBytes, height, &total))
    return cudaErrorMemoryAllocation;
  *pitch = rowBytes;
  return malloc(ptr, total);
}

cudaError_t Runtime::memset2D(void *dst, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream) {
  if (width == 0 || height == 0)
    return cudaSuccess;
  if (!dst)
    return cudaErrorInvalidValue;
  if (width > pitch)
    return cudaErrorInvalidPitchValue;
  size_t span;
  if (!pitchedSpan(pitch, width, height, &span))
    return cudaErrorInvalidValue;
  if (pitch == width) // contiguous rows: one memset
    return memset(dst, value, span, stream, false);
  { // every row is checked before the first is sent
    std::lock_guard<std::mutex> lock(mu_);
    if (cudaError_t err = ensureConnectedLocked())
      return err;
    if (cudaError_t err =
            checkDeviceRangeLocked("cudaMemset2D", "destination", dst, span))
      return err;
  }
  auto *row = static_cast<uint8_t *>(dst);
  for (size_t r = 0; r < height; ++r, row += pitch)
    if (cudaError_t err = memset(row, value, width, stream, false))
      return err;
  return cudaSuccess;
}

cudaError_t Runtime::memset3D(cudaPitchedPtr p, int value, cudaExtent extent,
                              cudaStream_t stream) {
  if (extent.depth == 0)
    return cudaSuccess;
  if (extent.height > p.ysize && extent.depth > 1)
    return cudaErrorInvalidValue;
  // Slices are ysize rows apart; with extent.height == ysize they touch
  // and the whole extent is one 2D memset of height * depth rows.
  if (extent.height == p.ysize)
    return memset2D(p.ptr, p.pitch, value, extent.width,
                    extent.height * extent.depth, stream);
  auto *slice = static_cast<uint8_t *>(p.ptr);
  for (size_t z = 0; z < extent.depth; ++z, slice += p.pitch * p.ysize)
    if (cudaError_t err = memset2D(slice, p.pitch, value, extent.width,
                                   extent.height, stream))
      return err;
  return cudaSuccess;
}

cudaError_t Runtime::memcpy3D(const cudaMemcpy3DParms *p, cudaStream_t stream,
                              bool async) {
  if (!p)
    return cudaErrorInvalidValue;
  if (p->srcArray || p->dstArray)
    return memcpy3DArray(p, stream, async);
  const cudaExtent &e = p->extent; // bytes wide, for linear memory
  if (e.width == 0 || e.height == 0 || e.depth == 0)
    return cudaSuccess;
  if (!p->srcPtr.ptr || !p->dstPtr.ptr)
    return cudaErrorInvalidValue;
  if ((e.depth > 1 && (e.height + p->srcPos.y > p->srcPtr.ysize ||
                       e.height + p->dstPos.y > p->dstPtr.ysize)))
    return cudaErrorInvalidValue;
  size_t srcSlice = p->srcPtr.pitch * p->srcPtr.ysize,
         dstSlice = p->dstPtr.pitch * p->dstPtr.ysize;
  const auto *src = static_cast<const uint8_t *>(p->srcPtr.ptr) +
                    p->srcPos.z * srcSlice + p->srcPos.y * p->srcPtr.pitch +
                    p->srcPos.x;
  auto *dst = static_cast<uint8_t *>(p->dstPtr.ptr) + p->dstPos.z * dstSlice +
              p->dstPos.y * p->dstPtr.pitch + p->dstPos.x;
  // Whole slices on both sides with equal pitches: one 2D copy of all rows.
  if (e.height == p->srcPtr.ysize && e.height == p->dstPtr.ysize)
    return memcpy2D(dst, p->dstPtr.pitch, src, p->srcPtr.pitch, e.width,
                    e.height * e.depth, p->kind, stream, async, false);
  for (size_t z = 0; z < e.depth; ++z, src += srcSlice, dst += dstSlice)
    if (cudaError_t err =
            memcpy2D(dst, p->dstPtr.pitch, src, p->srcPtr.pitch, e.width,
                     e.height, p->kind, stream, async, false))
      return err;
  return cudaSuccess;
}

namespace {
// Both sides CUDA arrays of one element size: positions and extent count
// elements (core/array_to_array.h).
cudaError_t copyBetweenArrays(Runtime &rt, const cudaMemcpy3DParms *p,
                              cudaStream_t stream, const char *call) {
  cudaChannelFormatDesc from, to;
  if (cudaError_t err =
          rt.arrays().arrayInfo(p->srcArray, &from, nullptr, nullptr))
    return err;
  if (cudaError_t err =
          rt.arrays().arrayInfo(p->dstArray, &to, nullptr, nullptr))
    return err;
  size_t element = rc::channelElementBytes(from.x, from.y, from.z, from.w);
  if (element != rc::channelElementBytes(to.x, to.y, to.z, to.w))
    return cudaErrorInvalidValue;
  Runtime::ArrayBox box;
  box.x = p->srcPos.x * element;
  box.y = p->srcPos.y;
  box.z = p->srcPos.z;
  box.width = p->extent.width * element;
  box.height = p->extent.height;
  box.depth = p->extent.depth;
  return copyArrayToArray(rt, p->dstArray, p->dstPos.x * element, p->dstPos.y,
                          p->dstPos.z, p->srcArray, box, p->kind, stream, call);
}
} // namespace

// One side a CUDA array: the extent and that side's position count its
// elements, the linear side's x counts bytes.
cudaError_t Runtime::memcpy3DArray(const cudaMemcpy3DParms *p,
                                   cudaStream_t stream, bool async) {
  const char *call = async ? "cudaMemcpy3DAsync" : "cudaMemcpy3D";
  if (p->srcArray && p->dstArray)
    return copyBetweenArrays(*this, p, stream, call);
  bool toArray = p->dstArray != nullptr;
  cudaArray_const_t array = toArray ? p->dstArray : p->srcArray;
  const cudaPitchedPtr &lin = toArray ? p->srcPtr : p->dstPtr;
  const cudaPos &arrayPos = toArray ? p->dstPos : p->srcPos;
  const cudaPos &linPos = toArray ? p->srcPos : p->dstPos;
  cudaChannelFormatDesc desc;
  if (cudaError_t err = arrays_.arrayInfo(array, &desc, nullptr, nullptr))
    return err;
  size_t element = rc::channelElementBytes(desc.x, desc.y, desc.z, desc.w);
  const cudaExtent &e = p->extent;
  if (e.width == 0 || e.height == 0 || e.depth == 0)
    return cudaSuccess;
  if (!lin.ptr)
    return cudaErrorInvalidValue;
  ArrayBox box;
  box.x = arrayPos.x * element;
  box.y = arrayPos.y;
  box.z = arrayPos.z;
  box.width = e.width * element;
  box.height = e.height;
  box.depth = e.depth;
  size_t rows = lin.ysize ? lin.ysize : e.height;
  auto *linear = static_cast<uint8_t *>(lin.ptr) + linPos.z * lin.pitch * rows +
                 linPos.y * lin.pitch + linPos.x;
  return arrays_.arrayCopy(array, box, toArray, linear, lin.pitch, rows,
                           p->kind, stream, call);
}

} // namespace rc::rt
