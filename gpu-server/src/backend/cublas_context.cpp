// Shared pieces of rc-server's cuBLAS support: names and sizes of the
// cuBLAS/CUDA enums the wire carries, and the default "no cuBLAS here".
// The wire carries them as plain integers; each is switched on as an int and
// becomes its enum type only once known (another number in an enum variable
// is undefined behaviour, which UBSan reports).
#include "backend/cublas_context.h"
#include "rc/server/errors.h"

#include <cublas_api.h>

#include "rc/cublas_scalars.h"

namespace rc::server {

BlasContext *DeviceContext::blas(std::string *why) {
  if (why)
    *why = "this backend has no cuBLAS";
  return nullptr;
}

const char *gemmApiName(GemmApi api) {
  switch (api) {
  case GemmApi::Sgemm:
    return "cublasSgemm_v2";
  case GemmApi::GemmEx:
    return "cublasGemmEx";
  case GemmApi::SgemmStridedBatched:
    return "cublasSgemmStridedBatched";
  case GemmApi::GemmStridedBatchedEx:
    return "cublasGemmStridedBatchedEx";
  case GemmApi::SgemmBatched:
    return "cublasSgemmBatched";
  case GemmApi::GemmBatchedEx:
    return "cublasGemmBatchedEx";
  }
  return "cublas gemm";
}

size_t blasTypeSize(int t) {
  switch (t) {
  case CUDA_R_8I:
  case CUDA_R_8U:
    return 1;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  case CUDA_R_32F:
  case CUDA_R_32I:
  case CUDA_C_16F:
  case CUDA_C_16BF:
    return 4;
  case CUDA_R_64F:
  case CUDA_C_32F:
    return 8;
  case CUDA_C_64F:
    return 16;
  default:
    return 0;
  }
}

size_t blasScalarSize(int computeType) { return cublasScalarSize(computeType); }

bool blasGemmAlgoKnown(int algo) {
  return (algo >= CUBLAS_GEMM_DEFAULT && algo <= CUBLAS_GEMM_ALGO23) ||
         (algo >= CUBLAS_GEMM_DEFAULT_TENSOR_OP &&
          algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP);
}

bool blasMathModeKnown(uint32_t mode) {
  // One of the modes, optionally with the one flag cuBLAS defines.
  uint32_t base =
      mode & ~uint32_t(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  return base <= CUBLAS_TF32_TENSOR_OP_MATH;
}

std::string blasTypeName(int t) {
  switch (t) {
  case CUDA_R_16F:
    return "CUDA_R_16F";
  case CUDA_R_16BF:
    return "CUDA_R_16BF";
  case CUDA_R_32F:
    return "CUDA_R_32F";
  case CUDA_R_64F:
    return "CUDA_R_64F";
  case CUDA_R_8I:
    return "CUDA_R_8I";
  case CUDA_R_32I:
    return "CUDA_R_32I";
  default:
    return "cudaDataType " + std::to_string(t);
  }
}

} // namespace rc::server
