// The runtime's CUDA arrays and texture and surface objects (arrays.cpp,
// docs/textures.md): the arrays it created (their IDs chosen here, so
// creating, freeing and copying into one are batched), copies between an
// array and linear memory, and the objects the server made.
//
// Locking: guarded by the runtime's lock (runtime.h, "Locking"); the public
// calls take it.
#ifndef RC_RT_ARRAYS_H
#define RC_RT_ARRAYS_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>

namespace rc::rt {

class Runtime;

class Arrays {
public:
  explicit Arrays(Runtime &rt) : rt_(rt) {}
  Arrays(const Arrays &) = delete;
  Arrays &operator=(const Arrays &) = delete;

  // `extent` in elements (height 0: 1D, depth 0: 2D), as cudaMalloc3DArray.
  cudaError_t arrayCreate(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                          cudaExtent extent, unsigned flags);
  cudaError_t arrayFree(cudaArray_t array);
  cudaError_t arrayInfo(cudaArray_const_t array, cudaChannelFormatDesc *desc,
                        cudaExtent *extent, unsigned *flags);
  // A box of `array` (x and width in bytes) to or from linear memory at
  // `linear` (`pitch` bytes a row, `rows` rows a slice), host or device as
  // `kind` says (cudaMemcpyDefault: as the pointer is).
  struct ArrayBox {
    size_t x = 0, y = 0, z = 0, width = 0, height = 1, depth = 1;
  };
  cudaError_t arrayCopy(cudaArray_const_t array, const ArrayBox &box,
                        bool toArray, void *linear, size_t pitch, size_t rows,
                        cudaMemcpyKind kind, cudaStream_t stream,
                        const char *call);
  // cudaMemcpyToArray / FromArray: `count` bytes from (x bytes, y) on,
  // running on into the next rows.
  cudaError_t arrayCopyLinear(cudaArray_const_t array, size_t x, size_t y,
                              bool toArray, void *linear, size_t count,
                              cudaMemcpyKind kind, cudaStream_t stream,
                              const char *call);
  cudaError_t textureCreate(uint64_t *object, const cudaResourceDesc *res,
                            const cudaTextureDesc *tex,
                            const cudaResourceViewDesc *view, bool surface);
  cudaError_t textureDestroy(uint64_t object, bool surface);

private:
  Runtime &rt_;
  // CUDA arrays: the cudaArray_t the application holds is the wire ID.
  struct ArrayInfo {
    cudaChannelFormatDesc desc{};
    cudaExtent extent{};
    unsigned flags = 0;
    size_t rowBytes = 0, rows = 0, slices = 0;
  };
  std::map<uint64_t, ArrayInfo> arrays_;
  uint64_t nextArray_ = 1;
  std::map<uint64_t, bool> textureObjects_; // server handle -> is a surface
  cudaError_t arrayLocked(cudaArray_const_t array, const ArrayInfo **out) const;
};

} // namespace rc::rt

#endif
