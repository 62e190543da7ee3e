// A wire rule shared by the client's cuBLAS library and rc-server: cuBLAS
// calls carry alpha/beta by value, sized by the call's compute type. Both
// sides must agree on the size, so it is defined once, here.
// Include cublas_api.h (CUDA 11 or later: the enum values are stable) first.
#ifndef RC_CUBLAS_SCALARS_H
#define RC_CUBLAS_SCALARS_H

#include <cstdint>

namespace rc {

// Bytes of alpha/beta for a compute type; 0 for those remote-clang does not
// carry (complex scaling, unknown types). An int, not the enum: the server
// sizes numbers that came off the wire, which may name no compute type at
// all (holding such a number in a cublasComputeType_t is undefined).
inline uint32_t cublasScalarSize(int t) {
  switch (t) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC:
    return 2;
  case CUBLAS_COMPUTE_32F:
  case CUBLAS_COMPUTE_32F_PEDANTIC:
  case CUBLAS_COMPUTE_32F_FAST_16F:
  case CUBLAS_COMPUTE_32F_FAST_16BF:
  case CUBLAS_COMPUTE_32F_FAST_TF32:
  case CUBLAS_COMPUTE_32I:
  case CUBLAS_COMPUTE_32I_PEDANTIC:
    return 4;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC:
    return 8;
  default:
    return 0;
  }
}

} // namespace rc

#endif
