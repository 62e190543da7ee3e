// Copies between two CUDA arrays (cudaMemcpy2DArrayToArray,
// cudaMemcpyArrayToArray, cudaMemcpy3D between arrays): the server copies
// arrays to and from linear memory (ArrayCopy), so a box goes through a
// temporary device buffer, out of one array and into the other, both in
// stream order; the buffer is freed after them (cudaFree frees in stream
// order on the server). One round trip, for the buffer.
#ifndef RC_RT_ARRAY_TO_ARRAY_H
#define RC_RT_ARRAY_TO_ARRAY_H

#include "core/runtime.h"

namespace rc::rt {

// `box` of `src` (x and width in bytes) to the same-sized box of `dst` at
// (dstX bytes, dstY, dstZ).
cudaError_t copyArrayToArray(Runtime &rt, cudaArray_t dst, size_t dstX,
                             size_t dstY, size_t dstZ, cudaArray_const_t src,
                             const Runtime::ArrayBox &box, cudaMemcpyKind kind,
                             cudaStream_t stream, const char *call);

// `count` bytes from (srcX bytes, srcY) of `src` on, running on into the
// next rows, to `dst` from (dstX, dstY) on (cudaMemcpyArrayToArray).
cudaError_t copyArrayToArrayLinear(Runtime &rt, cudaArray_t dst, size_t dstX,
                                   size_t dstY, cudaArray_const_t src,
                                   size_t srcX, size_t srcY, size_t count,
                                   cudaMemcpyKind kind, cudaStream_t stream,
                                   const char *call);

} // namespace rc::rt

#endif
