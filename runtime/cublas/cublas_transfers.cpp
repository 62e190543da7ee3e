// cuBLAS's host <-> device helpers (cublasSet/Get Vector/Matrix, their
// Async and _64 forms): strided copies, so each is one cudaMemcpy2D(Async)
// of the runtime (docs/cublas.md, "Transfers"). A vector's elements are the
// rows of a 2D copy (width elemSize, pitch inc * elemSize), a matrix's
// columns are (width rows * elemSize, pitch ld * elemSize); contiguous ones
// travel as one copy. Arguments cuBLAS refuses are refused here with
// CUBLAS_STATUS_INVALID_VALUE; a copy the runtime refuses (a device range
// outside the client's allocations) is CUBLAS_STATUS_MAPPING_ERROR, as
// cuBLAS reports a failed access to GPU memory.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

namespace {

cublasStatus_t copy2D(void *dst, int64_t dpitch, const void *src,
                      int64_t spitch, int64_t width, int64_t height,
                      cudaMemcpyKind kind, cudaStream_t stream, bool async) {
  if (height == 0 || width == 0)
    return CUBLAS_STATUS_SUCCESS;
  cudaError_t err =
      async ? cudaMemcpy2DAsync(dst, size_t(dpitch), src, size_t(spitch),
                                size_t(width), size_t(height), kind, stream)
            : cudaMemcpy2D(dst, size_t(dpitch), src, size_t(spitch),
                           size_t(width), size_t(height), kind);
  return err == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                            : CUBLAS_STATUS_MAPPING_ERROR;
}

cublasStatus_t vector(int64_t n, int64_t elemSize, const void *x, int64_t incx,
                      void *y, int64_t incy, cudaMemcpyKind kind,
                      cudaStream_t stream, bool async) {
  if (n < 0 || elemSize <= 0 || incx <= 0 || incy <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  return copy2D(y, incy * elemSize, x, incx * elemSize, elemSize, n, kind,
                stream, async);
}

cublasStatus_t matrix(int64_t rows, int64_t cols, int64_t elemSize,
                      const void *a, int64_t lda, void *b, int64_t ldb,
                      cudaMemcpyKind kind, cudaStream_t stream, bool async) {
  if (rows < 0 || cols < 0 || elemSize <= 0 ||
      lda < std::max<int64_t>(1, rows) || ldb < std::max<int64_t>(1, rows))
    return CUBLAS_STATUS_INVALID_VALUE;
  return copy2D(b, ldb * elemSize, a, lda * elemSize, rows * elemSize, cols,
                kind, stream, async);
}

constexpr cudaMemcpyKind kUp = cudaMemcpyHostToDevice;
constexpr cudaMemcpyKind kDown = cudaMemcpyDeviceToHost;

} // namespace

extern "C" {

cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx,
                               void *devicePtr, int incy) {
  return vector(n, elemSize, x, incx, devicePtr, incy, kUp, nullptr, false);
}
cublasStatus_t cublasSetVector_64(int64_t n, int64_t elemSize, const void *x,
                                  int64_t incx, void *devicePtr, int64_t incy) {
  return vector(n, elemSize, x, incx, devicePtr, incy, kUp, nullptr, false);
}
cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx,
                               void *y, int incy) {
  return vector(n, elemSize, x, incx, y, incy, kDown, nullptr, false);
}
cublasStatus_t cublasGetVector_64(int64_t n, int64_t elemSize, const void *x,
                                  int64_t incx, void *y, int64_t incy) {
  return vector(n, elemSize, x, incx, y, incy, kDown, nullptr, false);
}
cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr,
                                    int incx, void *devicePtr, int incy,
                                    cudaStream_t stream) {
  return vector(n, elemSize, hostPtr, incx, devicePtr, incy, kUp, stream, true);
}
cublasStatus_t cublasSetVectorAsync_64(int64_t n, int64_t elemSize,
                                       const void *hostPtr, int64_t incx,
                                       void *devicePtr, int64_t incy,
                                       cudaStream_t stream) {
  return vector(n, elemSize, hostPtr, incx, devicePtr, incy, kUp, stream, true);
}
cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr,
                                    int incx, void *hostPtr, int incy,
                                    cudaStream_t stream) {
  return vector(n, elemSize, devicePtr, incx, hostPtr, incy, kDown, stream,
                true);
}
cublasStatus_t cublasGetVectorAsync_64(int64_t n, int64_t elemSize,
                                       const void *devicePtr, int64_t incx,
                                       void *hostPtr, int64_t incy,
                                       cudaStream_t stream) {
  return vector(n, elemSize, devicePtr, incx, hostPtr, incy, kDown, stream,
                true);
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A,
                               int lda, void *B, int ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kUp, nullptr, false);
}
cublasStatus_t cublasSetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize,
                                  const void *A, int64_t lda, void *B,
                                  int64_t ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kUp, nullptr, false);
}
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A,
                               int lda, void *B, int ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kDown, nullptr, false);
}
cublasStatus_t cublasGetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize,
                                  const void *A, int64_t lda, void *B,
                                  int64_t ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kDown, nullptr, false);
}
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize,
                                    const void *A, int lda, void *B, int ldb,
                                    cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kUp, stream, true);
}
cublasStatus_t cublasSetMatrixAsync_64(int64_t rows, int64_t cols,
                                       int64_t elemSize, const void *A,
                                       int64_t lda, void *B, int64_t ldb,
                                       cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kUp, stream, true);
}
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize,
                                    const void *A, int lda, void *B, int ldb,
                                    cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kDown, stream, true);
}
cublasStatus_t cublasGetMatrixAsync_64(int64_t rows, int64_t cols,
                                       int64_t elemSize, const void *A,
                                       int64_t lda, void *B, int64_t ldb,
                                       cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kDown, stream, true);
}

} // extern "C"
