#include "core/array_to_array.h"

#include "core/enum_number.h"

namespace rc::rt {

namespace {

// Arrays are device memory: a copy between two is device to device.
bool deviceToDevice(cudaMemcpyKind kind) {
  int k = enumNumber(kind);
  return k == cudaMemcpyDefault || k == cudaMemcpyDeviceToDevice;
}

// The temporary buffer, freed when the copies that use it are done.
class Staging {
public:
  explicit Staging(Runtime &rt) : rt_(rt) {}
  ~Staging() {
    if (ptr_)
      rt_.free(ptr_);
  }
  cudaError_t allocate(size_t bytes) { return rt_.malloc(&ptr_, bytes); }
  void *ptr() const { return ptr_; }

private:
  Runtime &rt_;
  void *ptr_ = nullptr;
};

} // namespace

cudaError_t copyArrayToArray(Runtime &rt, cudaArray_t dst, size_t dstX,
                             size_t dstY, size_t dstZ, cudaArray_const_t src,
                             const Runtime::ArrayBox &box, cudaMemcpyKind kind,
                             cudaStream_t stream, const char *call) {
  if (!deviceToDevice(kind))
    return cudaErrorInvalidMemcpyDirection;
  if (box.width == 0 || box.height == 0 || box.depth == 0)
    return cudaSuccess;
  size_t bytes;
  if (__builtin_mul_overflow(box.width, box.height, &bytes) ||
      __builtin_mul_overflow(bytes, box.depth, &bytes))
    return cudaErrorInvalidValue;
  Staging staging(rt);
  if (cudaError_t err = staging.allocate(bytes))
    return err;
  if (cudaError_t err = rt.arrays().arrayCopy(
          src, box, false, staging.ptr(), box.width, box.height,
          cudaMemcpyDeviceToDevice, stream, call))
    return err;
  Runtime::ArrayBox to = box;
  to.x = dstX;
  to.y = dstY;
  to.z = dstZ;
  return rt.arrays().arrayCopy(dst, to, true, staging.ptr(), box.width,
                               box.height, cudaMemcpyDeviceToDevice, stream,
                               call);
}

cudaError_t copyArrayToArrayLinear(Runtime &rt, cudaArray_t dst, size_t dstX,
                                   size_t dstY, cudaArray_const_t src,
                                   size_t srcX, size_t srcY, size_t count,
                                   cudaMemcpyKind kind, cudaStream_t stream,
                                   const char *call) {
  if (!deviceToDevice(kind))
    return cudaErrorInvalidMemcpyDirection;
  if (count == 0)
    return cudaSuccess;
  Staging staging(rt);
  if (cudaError_t err = staging.allocate(count))
    return err;
  if (cudaError_t err = rt.arrays().arrayCopyLinear(
          src, srcX, srcY, false, staging.ptr(), count,
          cudaMemcpyDeviceToDevice, stream, call))
    return err;
  return rt.arrays().arrayCopyLinear(dst, dstX, dstY, true, staging.ptr(),
                                     count, cudaMemcpyDeviceToDevice, stream,
                                     call);
}

} // namespace rc::rt
