// cuBLAS's and cuBLASLt's host-side answers that need no GPU: versions
// and properties of the headers the client is built with (the server's
// library is at least that new), status names, and the error handler
// cuBLAS calls on an illegal argument.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

namespace {
// `type` is read as the number it holds: a program may pass any.
cublasStatus_t property(const libraryPropertyType &type, int *value) {
  int number;
  std::memcpy(&number, &type, sizeof number);
  if (!value)
    return CUBLAS_STATUS_INVALID_VALUE;
  switch (number) {
  case MAJOR_VERSION:
    *value = CUBLAS_VER_MAJOR;
    return CUBLAS_STATUS_SUCCESS;
  case MINOR_VERSION:
    *value = CUBLAS_VER_MINOR;
    return CUBLAS_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *value = CUBLAS_VER_PATCH;
    return CUBLAS_STATUS_SUCCESS;
  default:
    return CUBLAS_STATUS_INVALID_VALUE;
  }
}
} // namespace

extern "C" {

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value) {
  return property(type, value);
}
cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value) {
  return property(type, value);
}

size_t cublasGetCudartVersion(void) { return CUDART_VERSION; }
size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }
size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }

const char *cublasLtGetStatusName(cublasStatus_t status) {
  return cublasGetStatusName(status);
}
const char *cublasLtGetStatusString(cublasStatus_t status) {
  return cublasGetStatusString(status);
}

// What cuBLAS prints when a routine is handed an illegal argument.
void cublasXerbla(const char *srName, int info) {
  std::fprintf(stderr,
               "** On entry to %s parameter number %d had an illegal value\n",
               srName ? srName : "(null)", info);
}

} // extern "C"
