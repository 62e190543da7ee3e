// librc_cublas.so: the cuBLAS entry points remote-clang programs link. This
// slice creates and destroys handles locally (a handle is only a token until
// the compute calls exist); the compute calls ggml uses fail by name with
// CUBLAS_STATUS_NOT_SUPPORTED (issue 3 implements them on the server).
#include <cublas_v2.h>

#include <atomic>
#include <cstdint>

extern "C" int __rc_report_unsupported(const char *call, const char *library);

namespace {
std::atomic<uintptr_t> nextHandle{0x1000};

cublasStatus_t unsupported(const char *call) {
  __rc_report_unsupported(call, "cuBLAS");
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
} // namespace

#define RC_CUBLAS_UNSUPPORTED(name, ...)                                       \
  cublasStatus_t name(__VA_ARGS__) { return unsupported(#name); }

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = reinterpret_cast<cublasHandle_t>(nextHandle.fetch_add(1));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  return handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "<unknown>";
}

RC_CUBLAS_UNSUPPORTED(cublasSetStream_v2, cublasHandle_t, cudaStream_t)
RC_CUBLAS_UNSUPPORTED(cublasSetMathMode, cublasHandle_t, cublasMath_t)
RC_CUBLAS_UNSUPPORTED(cublasGemmEx, cublasHandle_t, cublasOperation_t,
                      cublasOperation_t, int, int, int, const void *,
                      const void *, cudaDataType, int, const void *,
                      cudaDataType, int, const void *, void *, cudaDataType,
                      int, cublasComputeType_t, cublasGemmAlgo_t)
RC_CUBLAS_UNSUPPORTED(cublasGemmBatchedEx, cublasHandle_t, cublasOperation_t,
                      cublasOperation_t, int, int, int, const void *,
                      const void *const[], cudaDataType, int,
                      const void *const[], cudaDataType, int, const void *,
                      void *const[], cudaDataType, int, int,
                      cublasComputeType_t, cublasGemmAlgo_t)
RC_CUBLAS_UNSUPPORTED(cublasGemmStridedBatchedEx, cublasHandle_t,
                      cublasOperation_t, cublasOperation_t, int, int, int,
                      const void *, const void *, cudaDataType, int,
                      long long int, const void *, cudaDataType, int,
                      long long int, const void *, void *, cudaDataType, int,
                      long long int, int, cublasComputeType_t, cublasGemmAlgo_t)
RC_CUBLAS_UNSUPPORTED(cublasSgemm_v2, cublasHandle_t, cublasOperation_t,
                      cublasOperation_t, int, int, int, const float *,
                      const float *, int, const float *, int, const float *,
                      float *, int)

} // extern "C"
