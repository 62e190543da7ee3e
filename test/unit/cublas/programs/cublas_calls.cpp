// A plain C++ program using cuBLAS as ggml-cuda does (handle on a stream,
// TF32 math mode, a workspace, host-pointer scalars, device pointer arrays),
// linked to librc_cudart + librc_cublas. Checks every result against a CPU
// reference and prints one line per case; the driver test runs it against
// rc-server --test-device and looks for "PASS".
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

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

std::vector<float> quarters(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    v[i] = float(int((seed >> 16) % 17) - 8) / 4.0f;
  }
  return v;
}

void refGemm(bool ta, bool tb, int m, int n, int k, const float *A, int lda,
             const float *B, int ldb, float *C, int ldc) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += double(ta ? A[l + i * lda] : A[i + l * lda]) *
             double(tb ? B[j + l * ldb] : B[l + j * ldb]);
      C[i + j * ldc] = float(s);
    }
}

bool same(const std::vector<float> &a, const std::vector<float> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > 1e-3f * (1 + std::fabs(b[i])))
      return false;
  return true;
}

template <class T> T *devUpload(const std::vector<T> &v) {
  void *p = nullptr;
  cudaMalloc(&p, v.size() * sizeof(T));
  cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return static_cast<T *>(p);
}

std::vector<float> devRead(const float *p, size_t n) {
  std::vector<float> v(n);
  cudaMemcpy(v.data(), p, n * 4, cudaMemcpyDeviceToHost);
  return v;
}

} // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    std::printf("no device\n");
    return 2;
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cublasHandle_t h;
  check(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  check(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH) ==
            CUBLAS_STATUS_SUCCESS,
        "cublasSetMathMode");
  check(cublasSetStream(h, stream) == CUBLAS_STATUS_SUCCESS, "cublasSetStream");
  void *ws = nullptr;
  cudaMalloc(&ws, 4 << 20);
  check(cublasSetWorkspace(h, ws, 4 << 20) == CUBLAS_STATUS_SUCCESS,
        "cublasSetWorkspace");
  const float one = 1, zero = 0;

  // cublasSgemm(T, N): ggml's F32 mul_mat.
  const int m = 12, n = 3, k = 8;
  auto A = quarters(size_t(k) * m, 1), B = quarters(size_t(k) * n, 2);
  std::vector<float> C(size_t(m) * n);
  refGemm(true, false, m, n, k, A.data(), k, B.data(), k, C.data(), m);
  float *dA = devUpload(A), *dB = devUpload(B), *dC = devUpload(C);
  cudaMemsetAsync(dC, 0xff, C.size() * 4, stream); // NaNs, must be replaced
  check(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, dA, k, dB, k,
                    &zero, dC, m) == CUBLAS_STATUS_SUCCESS &&
            same(devRead(dC, C.size()), C),
        "cublasSgemm");

  // cublasGemmEx with F16 inputs and F32 output.
  std::vector<_Float16> Ah(A.begin(), A.end()), Bh(B.begin(), B.end());
  _Float16 *dAh = devUpload(Ah), *dBh = devUpload(Bh);
  cudaMemsetAsync(dC, 0, C.size() * 4, stream);
  check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, dAh,
                     CUDA_R_16F, k, dBh, CUDA_R_16F, k, &zero, dC, CUDA_R_32F,
                     m, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT_TENSOR_OP) == CUBLAS_STATUS_SUCCESS &&
            same(devRead(dC, C.size()), C),
        "cublasGemmEx F16->F32");

  // cublasGemmBatchedEx: two batches sharing A, pointers in device memory.
  std::vector<float> B2 = quarters(size_t(k) * n * 2, 3);
  std::vector<float> C2(size_t(m) * n * 2);
  for (int i = 0; i < 2; ++i)
    refGemm(true, false, m, n, k, A.data(), k, B2.data() + i * k * n, k,
            C2.data() + i * m * n, m);
  float *dB2 = devUpload(B2), *dC2 = devUpload(C2);
  std::vector<const void *> ptrs = {dA, dA, dB2, dB2 + k * n, dC2, dC2 + m * n};
  const void **dPtrs = devUpload(ptrs);
  cudaMemsetAsync(dC2, 0, C2.size() * 4, stream);
  check(cublasGemmBatchedEx(
            h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, dPtrs, CUDA_R_32F, k,
            dPtrs + 2, CUDA_R_32F, k, &zero, (void *const *)(dPtrs + 4),
            CUDA_R_32F, m, 2, CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT_TENSOR_OP) == CUBLAS_STATUS_SUCCESS &&
            same(devRead(dC2, C2.size()), C2),
        "cublasGemmBatchedEx");

  // cublasDgemm_v2 (sent as a 64F cublasGemmEx): C = 2 A B + 0.5 C.
  {
    std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end());
    std::vector<float> Cref = quarters(size_t(m) * n, 9);
    std::vector<double> Cd(Cref.begin(), Cref.end());
    refGemm(true, false, m, n, k, A.data(), k, B.data(), k, C.data(), m);
    double *dAd = devUpload(Ad), *dBd = devUpload(Bd), *dCd = devUpload(Cd);
    const double two = 2, half = 0.5;
    bool ok = cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &two, dAd, k,
                          dBd, k, &half, dCd, m) == CUBLAS_STATUS_SUCCESS;
    std::vector<double> got(Cd.size());
    cudaMemcpy(got.data(), dCd, got.size() * 8, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < got.size(); ++i)
      ok = ok && std::fabs(got[i] - (2.0 * C[i] + 0.5 * Cd[i])) < 1e-9;
    check(ok, "cublasDgemm");
  }

  // cublasSet/GetVector with strides: every other element of x lands at
  // every third of y; reading back with the same strides gives x's again.
  std::vector<float> x = quarters(16, 4), yBack(16, 7.0f);
  float *dy = devUpload(std::vector<float>(24, 0.0f));
  bool vecOk =
      cublasSetVector(8, 4, x.data(), 2, dy, 3) == CUBLAS_STATUS_SUCCESS &&
      cublasGetVector(8, 4, dy, 3, yBack.data(), 2) == CUBLAS_STATUS_SUCCESS;
  std::vector<float> dev = devRead(dy, 24);
  for (int i = 0; i < 16; ++i)
    vecOk = vecOk && yBack[i] == (i % 2 ? 7.0f : x[i]);
  for (int i = 0; i < 24; ++i)
    vecOk = vecOk && dev[i] == (i % 3 ? 0.0f : x[i / 3 * 2]);
  check(vecOk, "cublasSetVector/GetVector strided");

  // cublasSetMatrixAsync/GetMatrixAsync: a 5x3 block of a host matrix with
  // lda 7 into a device matrix with ldb 6, and back into a third layout.
  std::vector<float> M = quarters(7 * 3, 5), back(8 * 3, -1.0f);
  float *dM = devUpload(std::vector<float>(6 * 3, 0.0f));
  bool matOk = cublasSetMatrixAsync(5, 3, 4, M.data(), 7, dM, 6, stream) ==
                   CUBLAS_STATUS_SUCCESS &&
               cublasGetMatrixAsync(5, 3, 4, dM, 6, back.data(), 8, stream) ==
                   CUBLAS_STATUS_SUCCESS &&
               cudaStreamSynchronize(stream) == cudaSuccess;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 8; ++i)
      matOk = matOk && back[i + j * 8] == (i < 5 ? M[i + j * 7] : -1.0f);
  check(matOk, "cublasSetMatrixAsync/GetMatrixAsync with leading dimensions");
  check(cublasSetMatrix(5, 3, 4, M.data(), 4, dM, 6) ==
                CUBLAS_STATUS_INVALID_VALUE &&
            cublasSetVector(8, 4, x.data(), 0, dy, 1) ==
                CUBLAS_STATUS_INVALID_VALUE,
        "cublasSetMatrix lda < rows, cublasSetVector incx 0 refused");
  check(cublasSetVector(8, 4, x.data(), 1, dy + 20, 1) ==
            CUBLAS_STATUS_MAPPING_ERROR,
        "cublasSetVector past the allocation is a mapping error");

  // Arguments cuBLAS refuses at the call.
  check(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, dA, k - 1, dB,
                    k, &zero, dC, m) == CUBLAS_STATUS_INVALID_VALUE,
        "lda too small refused at the call");

  // CUBLAS_POINTER_MODE_DEVICE: alpha and beta in device memory, written
  // on the handle's stream before the GEMM reads them there.
  {
    float *dScalars = devUpload(std::vector<float>{1.0f, 1.0f});
    const float scalars[2] = {2.0f, 0.0f};
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    bool ok = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasGetPointerMode(h, &mode) == CUBLAS_STATUS_SUCCESS &&
              mode == CUBLAS_POINTER_MODE_DEVICE &&
              cudaMemcpyAsync(dScalars, scalars, 8, cudaMemcpyHostToDevice,
                              stream) == cudaSuccess &&
              cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, dScalars, dA, k,
                          dB, k, dScalars + 1, dC, m) == CUBLAS_STATUS_SUCCESS;
    std::vector<float> twice = C;
    for (float &v : twice)
      v *= 2;
    check(ok && same(devRead(dC, C.size()), twice),
          "cublasSgemm with device alpha and beta");
    check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasGetPointerMode(h, &mode) == CUBLAS_STATUS_SUCCESS &&
              mode == CUBLAS_POINTER_MODE_HOST,
          "back to host scalars");
  }

  // A bad device pointer: batched like a launch, reported at the next sync.
  cublasStatus_t atCall =
      cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, dAh, CUDA_R_16F,
                   k, dBh, CUDA_R_16F, k, &zero, reinterpret_cast<void *>(0x10),
                   CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cudaError_t atSync = cudaStreamSynchronize(stream);
  std::printf("bad pointer: at call %s, at sync %s\n",
              cublasGetStatusString(atCall), cudaGetErrorName(atSync));
  check(atCall == CUBLAS_STATUS_SUCCESS && atSync == cudaErrorInvalidValue,
        "bad pointer reported at the next sync");

  // Level-1 rows (docs/libraries.md) reach rc-server with the session's
  // handle; the test device's cuBLAS is a CPU reference of the GEMMs, with
  // no library to call, so it refuses them by name.
  float dot = 0;
  check(cublasSdot(h, 8, dy, 1, dy, 1, &dot) == CUBLAS_STATUS_NOT_SUPPORTED,
        "cublasSdot_v2 refused by the test device");

  check(cublasDestroy(h) == CUBLAS_STATUS_SUCCESS, "cublasDestroy");
  check(cublasDestroy(h) == CUBLAS_STATUS_NOT_INITIALIZED,
        "destroyed handle refused");
  check(cudaDeviceSynchronize() == cudaSuccess, "final sync");
  std::printf(failures ? "FAILED\n" : "PASS\n");
  return failures ? 1 : 0;
}
