// cuBLAS beyond the real GEMMs, served by rows (docs/libraries.md): a
// complex axpy and conjugated dot, a complex gemv, a rank-1 update, a
// symmetric product and rank-k update, a triangular product, a matrix
// sum, diagonal scaling, a plane rotation and a complex GEMM, each
// against the host's result.
#include "check.h"

#include <cublas_v2.h>

#include <cmath>
#include <complex>
#include <vector>

#define CHECK_BLAS(call) CHECK_LIB(call, CUBLAS_STATUS_SUCCESS)

using cf = std::complex<float>;
using cd = std::complex<double>;

// Doubles every element, by this program's own kernel: the rows' results
// feed a kernel and the kernel's feed the rows.
__global__ void twice(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 2.0f;
}

template <class T> T *upload(const std::vector<T> &v) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T> std::vector<T> download(const T *d, size_t n) {
  std::vector<T> v(n);
  CHECK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

static long report(const char *what, double error) {
  bool bad = !(error < 1e-3);
  std::printf("%-28s %s (error %g)\n", what, bad ? "differs" : "matches",
              error);
  return bad;
}

template <class V> double maxError(const V &a, const V &b) {
  double e = 0;
  for (size_t i = 0; i < a.size(); ++i)
    e = std::fmax(e, std::abs(a[i] - b[i]));
  return e;
}

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  long bad = 0;
  const int n = 6;

  // Complex axpy and conjugated dot.
  std::vector<cf> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = cf(i, 1 - i), y[i] = cf(0.5f * i, 2);
  cf *dx = upload(x), *dy = upload(y);
  cf alpha(1, -2);
  CHECK_BLAS(cublasCaxpy(h, n, reinterpret_cast<cuComplex *>(&alpha),
                         reinterpret_cast<cuComplex *>(dx), 1,
                         reinterpret_cast<cuComplex *>(dy), 1));
  std::vector<cf> wantY(n);
  for (int i = 0; i < n; ++i)
    wantY[i] = alpha * x[i] + y[i];
  bad += report("cublasCaxpy", maxError(download(dy, n), wantY));
  std::vector<cd> zx(n), zy(n);
  for (int i = 0; i < n; ++i)
    zx[i] = cd(i, 2), zy[i] = cd(1, -i);
  cd *dzx = upload(zx), *dzy = upload(zy), dot;
  CHECK_BLAS(cublasZdotc(h, n, reinterpret_cast<cuDoubleComplex *>(dzx), 1,
                         reinterpret_cast<cuDoubleComplex *>(dzy), 1,
                         reinterpret_cast<cuDoubleComplex *>(&dot)));
  cd wantDot = 0;
  for (int i = 0; i < n; ++i)
    wantDot += std::conj(zx[i]) * zy[i];
  bad += report("cublasZdotc", std::abs(dot - wantDot));

  // Complex gemv: y = A x, A n x n column-major.
  std::vector<cf> A(n * n);
  for (int i = 0; i < n * n; ++i)
    A[i] = cf(std::sin(float(i)), std::cos(float(i)));
  cf *dA = upload(A), one(1, 0), zero(0, 0);
  CHECK_BLAS(cublasCgemv(
      h, CUBLAS_OP_N, n, n, reinterpret_cast<cuComplex *>(&one),
      reinterpret_cast<cuComplex *>(dA), n, reinterpret_cast<cuComplex *>(dx),
      1, reinterpret_cast<cuComplex *>(&zero),
      reinterpret_cast<cuComplex *>(dy), 1));
  for (int r = 0; r < n; ++r) {
    wantY[r] = 0;
    for (int c = 0; c < n; ++c)
      wantY[r] += A[r + c * n] * x[c];
  }
  bad += report("cublasCgemv", maxError(download(dy, n), wantY));

  // Complex GEMM: C = A A.
  cf *dC = upload(std::vector<cf>(n * n));
  CHECK_BLAS(cublasCgemm(
      h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, reinterpret_cast<cuComplex *>(&one),
      reinterpret_cast<cuComplex *>(dA), n, reinterpret_cast<cuComplex *>(dA),
      n, reinterpret_cast<cuComplex *>(&zero),
      reinterpret_cast<cuComplex *>(dC), n));
  std::vector<cf> wantC(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      for (int k = 0; k < n; ++k)
        wantC[r + c * n] += A[r + k * n] * A[k + c * n];
  bad += report("cublasCgemm", maxError(download(dC, n * n), wantC));

  // Real routines on a symmetric S (only its lower half is read) and
  // vectors u, v.
  std::vector<float> S(n * n), u(n), v(n);
  for (int r = 0; r < n; ++r) {
    u[r] = 1.0f + r, v[r] = 2.0f - r;
    for (int c = 0; c < n; ++c)
      S[r + c * n] = r >= c ? 1.0f / (1 + r + c) : -99.0f;
  }
  auto sym = [&](int r, int c) { return r >= c ? S[r + c * n] : S[c + r * n]; };
  float *dS = upload(S), *du = upload(u), *dv = upload(v);
  float fone = 1, fzero = 0;

  // Symmetric matrix-vector product, then this program's kernel.
  float *dw = upload(std::vector<float>(n));
  CHECK_BLAS(cublasSsymv(h, CUBLAS_FILL_MODE_LOWER, n, &fone, dS, n, du, 1,
                         &fzero, dw, 1));
  twice<<<1, n>>>(dw, n);
  CHECK_LAUNCH();
  std::vector<float> want(n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      want[r] += 2 * sym(r, c) * u[c];
  bad += report("cublasSsymv + a kernel", maxError(download(dw, n), want));

  // Rank-1 update: G = u v^T + G, G zero.
  float *dG = upload(std::vector<float>(n * n));
  CHECK_BLAS(cublasSger(h, n, n, &fone, du, 1, dv, 1, dG, n));
  std::vector<float> G = download(dG, n * n), wantG(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      wantG[r + c * n] = u[r] * v[c];
  bad += report("cublasSger", maxError(G, wantG));

  // Symmetric product: M = S G (S on the left).
  float *dM = upload(std::vector<float>(n * n));
  CHECK_BLAS(cublasSsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, n, n,
                         &fone, dS, n, dG, n, &fzero, dM, n));
  std::vector<float> wantM(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      for (int k = 0; k < n; ++k)
        wantM[r + c * n] += sym(r, k) * wantG[k + c * n];
  bad += report("cublasSsymm", maxError(download(dM, n * n), wantM));

  // Rank-k update in double: K = A A^T (lower half).
  std::vector<double> D(n * n);
  for (int i = 0; i < n * n; ++i)
    D[i] = std::cos(0.3 * i);
  double *dD = upload(D), *dK = upload(std::vector<double>(n * n)), done = 1,
         dzero = 0;
  CHECK_BLAS(cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, n, &done,
                         dD, n, &dzero, dK, n));
  std::vector<double> K = download(dK, n * n);
  double kError = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c <= r; ++c) {
      double s = 0;
      for (int k = 0; k < n; ++k)
        s += D[r + k * n] * D[c + k * n];
      kError = std::fmax(kError, std::fabs(K[r + c * n] - s));
    }
  bad += report("cublasDsyrk", kError);

  // Triangular product: T = L G, L the lower half of S.
  float *dT = upload(std::vector<float>(n * n));
  CHECK_BLAS(cublasStrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                         CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &fone, dS, n,
                         dG, n, dT, n));
  std::vector<float> wantT(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      for (int k = 0; k <= r; ++k)
        wantT[r + c * n] += S[r + k * n] * wantG[k + c * n];
  bad += report("cublasStrmm", maxError(download(dT, n * n), wantT));

  // Matrix sum G^T + 2 G, and diagonal scaling diag(u) G.
  float two = 2;
  CHECK_BLAS(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &fone, dG, n, &two,
                         dG, n, dM, n));
  std::vector<float> wantSum(n * n), wantScaled(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      wantSum[r + c * n] = wantG[c + r * n] + 2 * wantG[r + c * n];
      wantScaled[r + c * n] = u[r] * wantG[r + c * n];
    }
  bad += report("cublasSgeam", maxError(download(dM, n * n), wantSum));
  CHECK_BLAS(cublasSdgmm(h, CUBLAS_SIDE_LEFT, n, n, dG, n, du, 1, dT, n));
  bad += report("cublasSdgmm", maxError(download(dT, n * n), wantScaled));

  // Plane rotation of u and v by (c, s).
  float c = 0.6f, s = 0.8f;
  CHECK_BLAS(cublasSrot(h, n, du, 1, dv, 1, &c, &s));
  std::vector<float> ru = download(du, n), rv = download(dv, n);
  double rotError = 0;
  for (int i = 0; i < n; ++i)
    rotError =
        std::fmax(rotError, std::fabs(ru[i] - (c * u[i] + s * v[i])) +
                                std::fabs(rv[i] - (c * v[i] - s * u[i])));
  bad += report("cublasSrot", rotError);

  CHECK_BLAS(cublasDestroy(h));
  return finish("cublas_breadth", bad);
}
