// cuBLASLt matmuls served by rc-server's libcublasLt (docs/libraries.md):
// column- and row-major layouts, a transposed operand, and the ReLU, bias
// and ReLU+bias epilogues, each against the host's result. Each shape's
// heuristic query is asked twice: the second is answered by the client.
#include "check.h"

#include <cublasLt.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#define CHECK_LT(call) CHECK_LIB(call, CUBLAS_STATUS_SUCCESS)

// The bias, by this program's own kernel: bias[i] = i / 8 - 2.
__global__ void ramp(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = i / 8.0f - 2.0f;
}

struct Case {
  const char *name;
  bool transA;
  cublasLtOrder_t order;
  cublasLtEpilogue_t epilogue;
};

const int m = 64, n = 48, k = 32;

// Element (r, c) of a rows x cols matrix stored in `order`.
static float at(const std::vector<float> &v, int rows, int cols, int r, int c,
                cublasLtOrder_t order) {
  return order == CUBLASLT_ORDER_ROW ? v[r * cols + c] : v[r + c * rows];
}

static long runCase(cublasLtHandle_t lt, const Case &cs, const float *dBias,
                    const std::vector<float> &bias, void *workspace,
                    size_t workspaceSize) {
  // Stored shapes: A is m x k (k x m when transposed), B k x n, C/D m x n.
  int aRows = cs.transA ? k : m, aCols = cs.transA ? m : k;
  std::vector<float> A(m * k), B(k * n), C(m * n);
  for (size_t i = 0; i < A.size(); ++i)
    A[i] = std::sin(0.1f * i);
  for (size_t i = 0; i < B.size(); ++i)
    B[i] = std::cos(0.07f * i);
  for (size_t i = 0; i < C.size(); ++i)
    C[i] = 0.01f * (i % 13);
  float *dA, *dB, *dC, *dD;
  CHECK(cudaMalloc(&dA, A.size() * 4));
  CHECK(cudaMalloc(&dB, B.size() * 4));
  CHECK(cudaMalloc(&dC, C.size() * 4));
  CHECK(cudaMalloc(&dD, C.size() * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));

  cublasLtMatmulDesc_t op;
  CHECK_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t t = cs.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t,
                                          sizeof t));
  CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                          &cs.epilogue, sizeof cs.epilogue));
  if (cs.epilogue == CUBLASLT_EPILOGUE_BIAS ||
      cs.epilogue == CUBLASLT_EPILOGUE_RELU_BIAS)
    CHECK_LT(cublasLtMatmulDescSetAttribute(
        op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dBias, sizeof dBias));
  auto layout = [&](int rows, int cols) {
    cublasLtMatrixLayout_t l;
    int64_t ld = cs.order == CUBLASLT_ORDER_ROW ? cols : rows;
    CHECK_LT(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, rows, cols, ld));
    CHECK_LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER,
                                              &cs.order, sizeof cs.order));
    return l;
  };
  cublasLtMatrixLayout_t la = layout(aRows, aCols), lb = layout(k, n),
                         lc = layout(m, n);
  cublasLtMatmulPreference_t pref;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceSize,
      sizeof workspaceSize));
  cublasLtMatmulHeuristicResult_t found[2] = {}, again[2] = {};
  int count = 0, countAgain = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 2,
                                          found, &count));
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 2,
                                          again, &countAgain));
  long bad = count < 1 || countAgain != count ||
             std::memcmp(&found[0].algo, &again[0].algo, sizeof found[0].algo);

  float alpha = 1.0f, beta = 0.5f;
  CHECK_LT(cublasLtMatmul(lt, op, &alpha, dA, la, dB, lb, &beta, dC, lc, dD, lc,
                          &found[0].algo, workspace, workspaceSize, 0));
  std::vector<float> D(m * n);
  CHECK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      double sum = 0;
      for (int i = 0; i < k; ++i) {
        float a = cs.transA ? at(A, aRows, aCols, i, r, cs.order)
                            : at(A, aRows, aCols, r, i, cs.order);
        sum += double(a) * at(B, k, n, i, c, cs.order);
      }
      double want = alpha * sum + beta * at(C, m, n, r, c, cs.order);
      if (cs.epilogue == CUBLASLT_EPILOGUE_BIAS ||
          cs.epilogue == CUBLASLT_EPILOGUE_RELU_BIAS)
        want += bias[r];
      if (cs.epilogue == CUBLASLT_EPILOGUE_RELU ||
          cs.epilogue == CUBLASLT_EPILOGUE_RELU_BIAS)
        want = std::max(want, 0.0);
      bad += std::fabs(at(D, m, n, r, c, cs.order) - want) > 1e-3;
    }
  std::printf("%-24s %s\n", cs.name, bad ? "differs" : "matches the host");
  for (cublasLtMatrixLayout_t l : {la, lb, lc})
    CHECK_LT(cublasLtMatrixLayoutDestroy(l));
  CHECK_LT(cublasLtMatmulPreferenceDestroy(pref));
  CHECK_LT(cublasLtMatmulDescDestroy(op));
  for (float *p : {dA, dB, dC, dD})
    CHECK(cudaFree(p));
  return bad;
}

int main() {
  cublasLtHandle_t lt;
  CHECK_LT(cublasLtCreate(&lt));
  float *dBias;
  CHECK(cudaMalloc(&dBias, m * sizeof(float)));
  ramp<<<1, m>>>(dBias, m);
  CHECK_LAUNCH();
  std::vector<float> bias(m);
  for (int i = 0; i < m; ++i)
    bias[i] = i / 8.0f - 2.0f;
  size_t workspaceSize = 4 << 20;
  void *workspace;
  CHECK(cudaMalloc(&workspace, workspaceSize));
  const Case cases[] = {
      {"column-major", false, CUBLASLT_ORDER_COL, CUBLASLT_EPILOGUE_DEFAULT},
      {"column-major, A^T", true, CUBLASLT_ORDER_COL,
       CUBLASLT_EPILOGUE_DEFAULT},
      {"row-major", false, CUBLASLT_ORDER_ROW, CUBLASLT_EPILOGUE_DEFAULT},
      {"row-major, A^T, ReLU", true, CUBLASLT_ORDER_ROW,
       CUBLASLT_EPILOGUE_RELU},
      {"column-major, bias", false, CUBLASLT_ORDER_COL, CUBLASLT_EPILOGUE_BIAS},
      {"column-major, ReLU+bias", false, CUBLASLT_ORDER_COL,
       CUBLASLT_EPILOGUE_RELU_BIAS},
  };
  long mismatches = 0;
  for (const Case &cs : cases)
    mismatches += runCase(lt, cs, dBias, bias, workspace, workspaceSize);
  CHECK_LT(cublasLtDestroy(lt));
  return finish("lt_matmul", mismatches);
}
