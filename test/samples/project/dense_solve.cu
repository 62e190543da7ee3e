// Dense linear systems with cuSOLVER (LU: getrf/getrs; Cholesky:
// potrf/potrs), served by rc-server's libcusolver (docs/libraries.md).
// Each solution must satisfy its system on the host.
#include "check.h"

#include <cusolverDn.h>

#include <cmath>
#include <vector>

#define CHECK_SOLVER(call) CHECK_LIB(call, CUSOLVER_STATUS_SUCCESS)

// b = 1, by this program's own kernel.
__global__ void fill(double *v, int n, double value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = value;
}

// Solves A x = 1 in place of b, by LU (spd false) or Cholesky; returns the
// largest |A x - 1| on the host.
static double solve(cusolverDnHandle_t h, const std::vector<double> &A, int n,
                    bool spd) {
  double *dA, *db, *work;
  int *dInfo, *dPiv;
  CHECK(cudaMalloc(&dA, n * n * sizeof(double)));
  CHECK(cudaMalloc(&db, n * sizeof(double)));
  CHECK(cudaMalloc(&dInfo, sizeof(int)));
  CHECK(cudaMalloc(&dPiv, n * sizeof(int)));
  CHECK(
      cudaMemcpy(dA, A.data(), n * n * sizeof(double), cudaMemcpyHostToDevice));
  fill<<<(n + 127) / 128, 128>>>(db, n, 1.0);
  CHECK_LAUNCH();
  int lwork = 0;
  if (spd) {
    CHECK_SOLVER(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dA,
                                             n, &lwork));
    CHECK(cudaMalloc(&work, std::max(lwork, 1) * sizeof(double)));
    CHECK_SOLVER(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, work,
                                  lwork, dInfo));
    CHECK_SOLVER(
        cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, 1, dA, n, db, n, dInfo));
  } else {
    CHECK_SOLVER(cusolverDnDgetrf_bufferSize(h, n, n, dA, n, &lwork));
    CHECK(cudaMalloc(&work, std::max(lwork, 1) * sizeof(double)));
    CHECK_SOLVER(cusolverDnDgetrf(h, n, n, dA, n, work, dPiv, dInfo));
    CHECK_SOLVER(
        cusolverDnDgetrs(h, CUBLAS_OP_N, n, 1, dA, n, dPiv, db, n, dInfo));
  }
  int info = -1;
  std::vector<double> x(n);
  CHECK(cudaMemcpy(&info, dInfo, sizeof info, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(x.data(), db, n * sizeof(double), cudaMemcpyDeviceToHost));
  double worst = info == 0 ? 0 : 1e9;
  for (int i = 0; i < n; ++i) {
    double ax = 0;
    for (int j = 0; j < n; ++j)
      ax += A[i + j * n] * x[j]; // column-major
    worst = std::fmax(worst, std::fabs(ax - 1.0));
  }
  for (void *p :
       {(void *)dA, (void *)db, (void *)work, (void *)dInfo, (void *)dPiv})
    CHECK(cudaFree(p));
  return worst;
}

int main() {
  const int n = 200;
  // General: a rotation-heavy matrix needing pivots; SPD: a shifted
  // Gram-like matrix.
  std::vector<double> general(n * n), spd(n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      general[i + j * n] =
          std::sin(1.0 + i * 7 + j * 3) + (i == (j + 1) % n ? 3 : 0);
      spd[i + j * n] = 1.0 / (1.0 + std::abs(i - j)) + (i == j ? n : 0);
    }
  cusolverDnHandle_t h;
  CHECK_SOLVER(cusolverDnCreate(&h));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  CHECK_SOLVER(cusolverDnSetStream(h, stream));
  double lu = solve(h, general, n, false), chol = solve(h, spd, n, true);
  CHECK_SOLVER(cusolverDnDestroy(h));
  std::printf("residuals: LU %g, Cholesky %g\n", lu, chol);
  return finish("dense_solve", (lu > 1e-8) + (chol > 1e-8));
}
