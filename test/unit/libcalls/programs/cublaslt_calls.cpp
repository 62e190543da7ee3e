// cuBLASLt through librc_cublas against rc-server --test-device, whose
// libcublasLt is test/unit/libcalls/fake_cublaslt.cpp. Prints "ok ..."
// per check and PASS at the end; libcalls_integration_test.cpp reads it
// (and counts the heuristic queries that reached the library).
#include "program_check.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define OK(call) CHECK((call) == CUBLAS_STATUS_SUCCESS, #call)

int main() {
  const int m = 3, k = 2, n = 2;
  const float A[m * k] = {1, 2, 3, 4, 5, 6}, B[k * n] = {1, 0, 2, 1},
                    C[m * n] = {1, 1, 1, 1, 1, 1};
  float *dA, *dB, *dC, *dD;
  for (auto [p, size] : {std::pair{&dA, sizeof A}, std::pair{&dB, sizeof B},
                         std::pair{&dC, sizeof C}, std::pair{&dD, sizeof C}})
    CHECK(cudaMalloc(reinterpret_cast<void **>(p), size) == cudaSuccess,
          "malloc");
  cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);

  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulPreference_t pref;
  OK(cublasLtCreate(&lt));
  OK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  OK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m));
  OK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
  OK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m));
  OK(cublasLtMatmulPreferenceCreate(&pref));
  size_t workspace = 0;
  OK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
      sizeof workspace));

  cublasLtMatmulHeuristicResult_t found[4], again[4];
  int count = 0, countAgain = 0;
  OK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 4, found,
                                    &count));
  OK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 4, again,
                                    &countAgain));
  CHECK(count == 1 && countAgain == 1 && again[0].algo.data[0] == 42,
        "the heuristic's answer, twice");
  std::printf("ok the same query twice\n");
  // Another shape asks again.
  cublasLtMatrixLayout_t lb3;
  OK(cublasLtMatrixLayoutCreate(&lb3, CUDA_R_32F, k, n, k + 1));
  OK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb3, lc, lc, pref, 4, found,
                                    &count));
  std::printf("ok another shape\n");

  float alpha = 2, beta = 1;
  OK(cublasLtMatmul(lt, op, &alpha, dA, la, dB, lb, &beta, dC, lc, dD, lc,
                    &again[0].algo, nullptr, 0, 0));
  float D[m * n];
  CHECK(cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost) == cudaSuccess,
        "copy back");
  bool same = true;
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < m; ++r) {
      float sum = 0;
      for (int i = 0; i < k; ++i)
        sum += A[r + i * m] * B[i + c * k];
      same = same && D[r + c * m] == alpha * sum + beta * C[r + c * m];
    }
  CHECK(same, "D = alpha A B + beta C");
  std::printf("ok cublasLtMatmul with the heuristic's algorithm\n");
  // Without an algorithm (null), and with a double scale type: 8-byte
  // alpha and beta.
  cublasLtMatmulDesc_t op64;
  OK(cublasLtMatmulDescCreate(&op64, CUBLAS_COMPUTE_64F, CUDA_R_64F));
  double alpha64 = 2, beta64 = 1;
  OK(cublasLtMatmul(lt, op64, &alpha64, dA, la, dB, lb, &beta64, dC, lc, dD, lc,
                    nullptr, nullptr, 0, 0));
  CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
  std::printf("ok no algorithm, 8-byte scalars\n");

  cublasLtPointerMode_t device = CUBLASLT_POINTER_MODE_DEVICE;
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_POINTER_MODE,
                                       &device, sizeof device) ==
            CUBLAS_STATUS_NOT_SUPPORTED,
        "device pointer mode refused");
  std::printf("ok device pointer mode refused\n");
  // A workspace past its allocation: refused by the server at the sync.
  OK(cublasLtMatmul(lt, op, &alpha, dA, la, dB, lb, &beta, dC, lc, dD, lc,
                    nullptr, dD, 4096, 0));
  cudaError_t err = cudaDeviceSynchronize();
  std::printf("ok a workspace past its allocation: %s\n",
              cudaGetErrorName(err));

  for (cublasLtMatrixLayout_t l : {la, lb, lb3, lc})
    OK(cublasLtMatrixLayoutDestroy(l));
  OK(cublasLtMatmulPreferenceDestroy(pref));
  OK(cublasLtMatmulDescDestroy(op));
  OK(cublasLtMatmulDescDestroy(op64));
  OK(cublasLtDestroy(lt));
  std::printf("PASS\n");
  return 0;
}
