// The legacy API's own calls (cublasInit, cublasShutdown, cublasGetError,
// cublasAlloc, cublasFree, cublasSetKernelStream, cublasGetVersion) and the
// implicit handle the legacy routines use (cublas_legacy.h).
#include "cublas_legacy.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>

namespace rc::cublas_legacy {
namespace {

// The legacy API is process-wide, as NVIDIA's is: one handle, one error.
struct State {
  std::mutex mu;
  cublasHandle_t handle = nullptr;
  cublasStatus_t lastError = CUBLAS_STATUS_SUCCESS;
};

State &state() {
  static State s;
  return s;
}

} // namespace

cublasHandle_t implicitHandle() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.handle;
}

void record(cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.lastError = status;
}

cublasOperation_t Letters::operation(char c) {
  switch (c) {
  case 'N':
  case 'n':
    return CUBLAS_OP_N;
  case 'T':
  case 't':
    return CUBLAS_OP_T;
  case 'C':
  case 'c':
    return CUBLAS_OP_C;
  }
  invalid_ = true;
  return CUBLAS_OP_N;
}

cublasFillMode_t Letters::fill(char c) {
  switch (c) {
  case 'U':
  case 'u':
    return CUBLAS_FILL_MODE_UPPER;
  case 'L':
  case 'l':
    return CUBLAS_FILL_MODE_LOWER;
  }
  invalid_ = true;
  return CUBLAS_FILL_MODE_UPPER;
}

cublasDiagType_t Letters::diagonal(char c) {
  switch (c) {
  case 'N':
  case 'n':
    return CUBLAS_DIAG_NON_UNIT;
  case 'U':
  case 'u':
    return CUBLAS_DIAG_UNIT;
  }
  invalid_ = true;
  return CUBLAS_DIAG_NON_UNIT;
}

cublasSideMode_t Letters::side(char c) {
  switch (c) {
  case 'L':
  case 'l':
    return CUBLAS_SIDE_LEFT;
  case 'R':
  case 'r':
    return CUBLAS_SIDE_RIGHT;
  }
  invalid_ = true;
  return CUBLAS_SIDE_LEFT;
}

} // namespace rc::cublas_legacy

using namespace rc::cublas_legacy;

extern "C" {

// Creates the implicit handle; a second call keeps the first handle.
cublasStatus_t cublasInit(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.handle)
    return CUBLAS_STATUS_SUCCESS;
  cublasStatus_t status = cublasCreate_v2(&s.handle);
  if (status != CUBLAS_STATUS_SUCCESS)
    s.handle = nullptr;
  s.lastError = status;
  return status;
}

// Without cublasInit there is nothing to release: success, as NVIDIA's.
cublasStatus_t cublasShutdown(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.handle)
    return CUBLAS_STATUS_SUCCESS;
  cublasStatus_t status = cublasDestroy_v2(s.handle);
  s.handle = nullptr;
  s.lastError = CUBLAS_STATUS_SUCCESS;
  return status;
}

// The last failure since the previous call, which it clears; before
// cublasInit, CUBLAS_STATUS_NOT_INITIALIZED.
cublasStatus_t cublasGetError(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  cublasStatus_t last = s.lastError;
  s.lastError = CUBLAS_STATUS_SUCCESS;
  return last;
}

cublasStatus_t cublasGetVersion(int *version) {
  return cublasGetVersion_v2(nullptr, version);
}

// Device memory for n elements of elemSize bytes (cudaMalloc's).
cublasStatus_t cublasAlloc(int n, int elemSize, void **devicePtr) {
  if (n <= 0 || elemSize <= 0 || !devicePtr)
    return CUBLAS_STATUS_INVALID_VALUE;
  cudaError_t err = cudaMalloc(devicePtr, size_t(n) * size_t(elemSize));
  if (err == cudaSuccess)
    return CUBLAS_STATUS_SUCCESS;
  return err == cudaErrorMemoryAllocation ? CUBLAS_STATUS_ALLOC_FAILED
                                          : CUBLAS_STATUS_INTERNAL_ERROR;
}

cublasStatus_t cublasFree(void *devicePtr) {
  return cudaFree(devicePtr) == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                                            : CUBLAS_STATUS_INTERNAL_ERROR;
}

// The stream the legacy routines run on.
cublasStatus_t cublasSetKernelStream(cudaStream_t stream) {
  cublasHandle_t handle = implicitHandle();
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  return cublasSetStream_v2(handle, stream);
}

} // extern "C"
