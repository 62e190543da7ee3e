// Conjugate gradient with cuSPARSE's SpMV and cuBLAS's level-1 routines,
// as NVIDIA's conjugateGradient sample solves it, served by rc-server's
// libraries (docs/libraries.md); then cublasSgemv against the host. The
// solution must satisfy the system on the host.
#include "check.h"

#include <cublas_v2.h>
#include <cusparse.h>

#include <cmath>
#include <vector>

#define CHECK_SPARSE(call) CHECK_LIB(call, CUSPARSE_STATUS_SUCCESS)
#define CHECK_BLAS(call) CHECK_LIB(call, CUBLAS_STATUS_SUCCESS)

// b = 1, written by this program's own kernel beside the libraries' work.
__global__ void fill(float *v, int n, float value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = value;
}

int main() {
  // A tridiagonal, symmetric positive definite system: 4 on the diagonal,
  // -1 beside it; b = 1.
  const int n = 4096;
  std::vector<int> rowPtr(n + 1), col;
  std::vector<float> val;
  for (int i = 0; i < n; ++i) {
    rowPtr[i] = int(col.size());
    for (int j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < n) {
        col.push_back(j);
        val.push_back(i == j ? 4.0f : -1.0f);
      }
  }
  const int nnz = int(col.size());
  rowPtr[n] = nnz;

  int *dRow, *dCol;
  float *dVal, *dx, *dr, *dp, *dAp;
  CHECK(cudaMalloc(&dRow, (n + 1) * sizeof(int)));
  CHECK(cudaMalloc(&dCol, nnz * sizeof(int)));
  CHECK(cudaMalloc(&dVal, nnz * sizeof(float)));
  for (float **v : {&dx, &dr, &dp, &dAp})
    CHECK(cudaMalloc(v, n * sizeof(float)));
  CHECK(cudaMemcpy(dRow, rowPtr.data(), (n + 1) * sizeof(int),
                   cudaMemcpyHostToDevice));
  CHECK(
      cudaMemcpy(dCol, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dVal, val.data(), nnz * sizeof(float),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dx, 0, n * sizeof(float)));
  fill<<<(n + 255) / 256, 256>>>(dr, n, 1.0f);
  CHECK_LAUNCH();

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  cusparseHandle_t sparse;
  CHECK_BLAS(cublasCreate(&blas));
  CHECK_BLAS(cublasSetStream(blas, stream));
  CHECK_SPARSE(cusparseCreate(&sparse));
  CHECK_SPARSE(cusparseSetStream(sparse, stream));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vp, vAp;
  CHECK_SPARSE(cusparseCreateCsr(&A, n, n, nnz, dRow, dCol, dVal,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK_SPARSE(cusparseCreateDnVec(&vp, n, dp, CUDA_R_32F));
  CHECK_SPARSE(cusparseCreateDnVec(&vAp, n, dAp, CUDA_R_32F));
  float one = 1.0f, zero = 0.0f;
  size_t bufferSize = 0;
  CHECK_SPARSE(cusparseSpMV_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       &one, A, vp, &zero, vAp, CUDA_R_32F,
                                       CUSPARSE_SPMV_ALG_DEFAULT, &bufferSize));
  void *buffer = nullptr;
  if (bufferSize)
    CHECK(cudaMalloc(&buffer, bufferSize));

  // x = 0, r = b, p = r; iterate until |r| < 1e-5.
  float rr = 0, rrNew = 0;
  CHECK_BLAS(cublasScopy(blas, n, dr, 1, dp, 1));
  CHECK_BLAS(cublasSdot(blas, n, dr, 1, dr, 1, &rr));
  int k = 0;
  for (; k < 200 && std::sqrt(rr) > 1e-5f; ++k) {
    CHECK_SPARSE(cusparseSpMV(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A,
                              vp, &zero, vAp, CUDA_R_32F,
                              CUSPARSE_SPMV_ALG_DEFAULT, buffer));
    float pAp = 0;
    CHECK_BLAS(cublasSdot(blas, n, dp, 1, dAp, 1, &pAp));
    float alpha = rr / pAp, minusAlpha = -alpha;
    CHECK_BLAS(cublasSaxpy(blas, n, &alpha, dp, 1, dx, 1));
    CHECK_BLAS(cublasSaxpy(blas, n, &minusAlpha, dAp, 1, dr, 1));
    CHECK_BLAS(cublasSdot(blas, n, dr, 1, dr, 1, &rrNew));
    float beta = rrNew / rr;
    CHECK_BLAS(cublasSscal(blas, n, &beta, dp, 1));
    CHECK_BLAS(cublasSaxpy(blas, n, &one, dr, 1, dp, 1));
    rr = rrNew;
  }
  float norm = 0;
  CHECK_BLAS(cublasSnrm2(blas, n, dr, 1, &norm));

  // The solution, checked on the host: |A x - b| small.
  std::vector<float> x(n);
  CHECK(cudaMemcpy(x.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double ax = 0;
    for (int e = rowPtr[i]; e < rowPtr[i + 1]; ++e)
      ax += double(val[e]) * x[col[e]];
    worst = std::fmax(worst, std::fabs(ax - 1.0));
  }
  long mismatches = 0;
  if (k == 200 || worst > 1e-4 || std::fabs(norm - std::sqrt(rr)) > 1e-4f) {
    std::fprintf(stderr, "cg: %d iterations, residual %g, |r| %g vs %g\n", k,
                 worst, norm, std::sqrt(rr));
    ++mismatches;
  }

  // cublasSgemv: y = A^T x for a 3 x 2 column-major A.
  const float hA[6] = {1, 2, 3, 4, 5, 6}, hv[3] = {1, 1, 2};
  float *dA, *dv, *dy, hy[2] = {0, 0};
  CHECK(cudaMalloc(&dA, sizeof hA));
  CHECK(cudaMalloc(&dv, sizeof hv));
  CHECK(cudaMalloc(&dy, sizeof hy));
  CHECK(cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
  CHECK_BLAS(
      cublasSgemv(blas, CUBLAS_OP_T, 3, 2, &one, dA, 3, dv, 1, &zero, dy, 1));
  CHECK(cudaMemcpyAsync(hy, dy, sizeof hy, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  mismatches += hy[0] != 9.0f || hy[1] != 21.0f; // 1+2+6, 4+5+12

  CHECK_SPARSE(cusparseDestroyDnVec(vp));
  CHECK_SPARSE(cusparseDestroyDnVec(vAp));
  CHECK_SPARSE(cusparseDestroySpMat(A));
  CHECK_SPARSE(cusparseDestroy(sparse));
  CHECK_BLAS(cublasDestroy(blas));
  std::printf("cg: %d iterations, |r| = %g\n", k, norm);
  return finish("sparse_cg", mismatches);
}
