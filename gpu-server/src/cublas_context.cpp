// Shared pieces of rc-server's cuBLAS support: names and sizes of the
// cuBLAS/CUDA enums the wire carries, and the default "no cuBLAS here".
#include "cublas_context.h"
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
  switch (cudaDataType(t)) {
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

size_t blasScalarSize(int computeType) {
  return cublasScalarSize(cublasComputeType_t(computeType));
}

std::string blasTypeName(int t) {
  switch (cudaDataType(t)) {
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
