// A plain C++ program using cuBLAS's legacy API (cublas.h: cublasInit, no
// handle, errors read with cublasGetError), linked to librc_cudart +
// librc_cublas, against rc-server --test-device (integration_test.cpp).
// Prints one line per case; "PASS" when all hold. With the argument
// "unserved" it calls a legacy routine remote-clang does not serve, which
// must stop the program naming it.
#include <cublas.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char *what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

// C = alpha * op(A) * op(B) + beta * C, column-major, on the CPU.
void refGemm(bool ta, bool tb, int m, int n, int k, double alpha,
             const std::vector<double> &A, int lda,
             const std::vector<double> &B, int ldb, double beta,
             std::vector<double> &C, int ldc) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += (ta ? A[l + i * lda] : A[i + l * lda]) *
             (tb ? B[j + l * ldb] : B[l + j * ldb]);
      C[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
    }
}

std::vector<double> quarters(size_t n, unsigned seed) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    v[i] = double(int((seed >> 16) % 17) - 8) / 4.0;
  }
  return v;
}

} // namespace

int main(int argc, char **argv) {
  // Before cublasInit every routine fails with NOT_INITIALIZED and
  // returns zero; cublasShutdown has nothing to do.
  float early = cublasSdot(4, nullptr, 1, nullptr, 1);
  check(early == 0 && cublasGetError() == CUBLAS_STATUS_NOT_INITIALIZED,
        "cublasSdot before cublasInit: 0, NOT_INITIALIZED");
  check(cublasSetKernelStream(nullptr) == CUBLAS_STATUS_NOT_INITIALIZED,
        "cublasSetKernelStream before cublasInit refused");
  check(cublasShutdown() == CUBLAS_STATUS_SUCCESS,
        "cublasShutdown before cublasInit succeeds");

  check(cublasInit() == CUBLAS_STATUS_SUCCESS, "cublasInit");
  check(cublasInit() == CUBLAS_STATUS_SUCCESS, "cublasInit again");
  check(cublasGetError() == CUBLAS_STATUS_SUCCESS, "no error after cublasInit");
  int version = 0;
  check(cublasGetVersion(&version) == CUBLAS_STATUS_SUCCESS && version > 0,
        "cublasGetVersion");

  if (argc > 1 && std::strcmp(argv[1], "unserved") == 0) {
    // gbmv has no v2 routine remote-clang serves: a stub that stops here.
    cublasSgbmv('N', 2, 2, 0, 0, 1.0f, nullptr, 1, nullptr, 1, 0.0f, nullptr,
                1);
    std::printf("FAIL the unserved cublasSgbmv returned\n");
    return 1;
  }

  // cublasAlloc: n elements of elemSize bytes; sizes <= 0 refused.
  void *none = nullptr;
  check(cublasAlloc(0, 8, &none) == CUBLAS_STATUS_INVALID_VALUE &&
            cublasAlloc(4, -8, &none) == CUBLAS_STATUS_INVALID_VALUE,
        "cublasAlloc of nothing refused");
  const int m = 5, n = 3, k = 4;
  double *dA = nullptr, *dB = nullptr, *dC = nullptr;
  check(cublasAlloc(k * m, sizeof(double), (void **)&dA) ==
                CUBLAS_STATUS_SUCCESS &&
            cublasAlloc(k * n, sizeof(double), (void **)&dB) ==
                CUBLAS_STATUS_SUCCESS &&
            cublasAlloc(m * n, sizeof(double), (void **)&dC) ==
                CUBLAS_STATUS_SUCCESS,
        "cublasAlloc");

  // cublasDgemm('T', 'n', ...): scalars by value, on the implicit handle.
  std::vector<double> A = quarters(size_t(k) * m, 1),
                      B = quarters(size_t(k) * n, 2);
  std::vector<double> C = quarters(size_t(m) * n, 3), want = C;
  refGemm(true, false, m, n, k, 2.0, A, k, B, k, 0.5, want, m);
  check(cublasSetMatrix(k, m, sizeof(double), A.data(), k, dA, k) ==
                CUBLAS_STATUS_SUCCESS &&
            cublasSetVector(k * n, sizeof(double), B.data(), 1, dB, 1) ==
                CUBLAS_STATUS_SUCCESS &&
            cublasSetVector(m * n, sizeof(double), C.data(), 1, dC, 1) ==
                CUBLAS_STATUS_SUCCESS,
        "cublasSetMatrix/SetVector");
  cublasDgemm('T', 'n', m, n, k, 2.0, dA, k, dB, k, 0.5, dC, m);
  std::vector<double> got(size_t(m) * n);
  bool gemmOk = cublasGetError() == CUBLAS_STATUS_SUCCESS &&
                cublasGetVector(m * n, sizeof(double), dC, 1, got.data(), 1) ==
                    CUBLAS_STATUS_SUCCESS;
  for (size_t i = 0; i < got.size(); ++i)
    gemmOk = gemmOk && std::fabs(got[i] - want[i]) < 1e-9;
  check(gemmOk, "cublasDgemm");

  // cublasSgemm on the stream cublasSetKernelStream names.
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  check(cublasSetKernelStream(stream) == CUBLAS_STATUS_SUCCESS,
        "cublasSetKernelStream");
  std::vector<float> As(A.begin(), A.end()), Bs(B.begin(), B.end());
  std::vector<float> Cs(size_t(m) * n, 7.0f), gotS(size_t(m) * n);
  std::vector<double> wantS(size_t(m) * n, 0.0);
  refGemm(true, false, m, n, k, 1.0, A, k, B, k, 0.0, wantS, m);
  float *sA = nullptr, *sB = nullptr, *sC = nullptr;
  cublasAlloc(k * m, sizeof(float), (void **)&sA);
  cublasAlloc(k * n, sizeof(float), (void **)&sB);
  cublasAlloc(m * n, sizeof(float), (void **)&sC);
  cublasSetMatrixAsync(k, m, sizeof(float), As.data(), k, sA, k, stream);
  cublasSetVectorAsync(k * n, sizeof(float), Bs.data(), 1, sB, 1, stream);
  cublasSetVectorAsync(m * n, sizeof(float), Cs.data(), 1, sC, 1, stream);
  cublasSgemm('t', 'N', m, n, k, 1.0f, sA, k, sB, k, 0.0f, sC, m);
  cublasGetVectorAsync(m * n, sizeof(float), sC, 1, gotS.data(), 1, stream);
  bool streamOk = cudaStreamSynchronize(stream) == cudaSuccess &&
                  cublasGetError() == CUBLAS_STATUS_SUCCESS;
  for (size_t i = 0; i < gotS.size(); ++i)
    streamOk = streamOk && std::fabs(gotS[i] - wantS[i]) < 1e-4;
  check(streamOk, "cublasSgemm on the kernel stream");

  // A letter cuBLAS does not know: INVALID_VALUE, nothing computed; the
  // error is kept until read, and reading clears it.
  cublasSgemm('x', 'N', m, n, k, 1.0f, sA, k, sB, k, 0.0f, sC, m);
  cublasSgemm('N', 'N', m, n, k, 1.0f, sA, m, sB, k, 0.0f, sC, m);
  check(cublasGetError() == CUBLAS_STATUS_INVALID_VALUE &&
            cublasGetError() == CUBLAS_STATUS_SUCCESS,
        "bad letter: INVALID_VALUE until read, then cleared");
  // cuBLAS's own argument check, through the v2 call: lda < m.
  cublasDgemm('N', 'N', m, n, k, 1.0, dA, m - 1, dB, k, 0.0, dC, m);
  check(cublasGetError() == CUBLAS_STATUS_INVALID_VALUE,
        "lda too small refused");

  // A level-1 routine is a row; the test device serves GEMMs only and
  // refuses it by name: the legacy call returns 0 and keeps the status.
  float dot = cublasSdot(4, sC, 1, sC, 1);
  check(dot == 0 && cublasGetError() == CUBLAS_STATUS_NOT_SUPPORTED,
        "cublasSdot refused by the test device: 0, NOT_SUPPORTED");

  check(cublasFree(dA) == CUBLAS_STATUS_SUCCESS &&
            cublasFree(dB) == CUBLAS_STATUS_SUCCESS &&
            cublasFree(dC) == CUBLAS_STATUS_SUCCESS &&
            cublasFree(sA) == CUBLAS_STATUS_SUCCESS &&
            cublasFree(sB) == CUBLAS_STATUS_SUCCESS &&
            cublasFree(sC) == CUBLAS_STATUS_SUCCESS,
        "cublasFree");
  check(cublasShutdown() == CUBLAS_STATUS_SUCCESS, "cublasShutdown");
  cublasSgemm('N', 'N', m, n, k, 1.0f, nullptr, m, nullptr, k, 0.0f, nullptr,
              m);
  check(cublasGetError() == CUBLAS_STATUS_NOT_INITIALIZED,
        "after cublasShutdown: NOT_INITIALIZED");
  std::printf(failures ? "FAILED\n" : "PASS\n");
  return failures ? 1 : 0;
}
