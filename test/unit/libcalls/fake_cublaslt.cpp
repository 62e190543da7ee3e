// A stand-in for libcublasLt.so.13 on the host test device (CI has no GPU
// and no cuBLASLt): descriptors that remember what they are set to, a
// heuristic that logs each query to stderr (rc-server's log, where tests
// count them), and a column-major float matmul on host memory without
// transposes or epilogues. The GPU tests run the real library.
#include <cublasLt.h>

#include <cstdio>
#include <cstring>

namespace {

int gQueries = 0;

// Attribute values live in the descriptors' own data words, by attribute
// number (the real library's layout is its own business).
template <class Opaque>
cublasStatus_t setWord(Opaque *o, int attr, const void *buf, size_t size) {
  if (attr < 0 || attr >= int(sizeof o->data / 8) || size > 8)
    return CUBLAS_STATUS_INVALID_VALUE;
  o->data[attr] = 0;
  std::memcpy(&o->data[attr], buf, size);
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

struct cublasLtContext {
  int unused;
};

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
  *h = new cublasLtContext{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d,
                                        cublasComputeType_t, cudaDataType_t) {
  *d = new cublasLtMatmulDescOpaque_t{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete d;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t a,
                                              const void *buf, size_t size) {
  return setWord(d, a, buf, size);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l,
                                          cudaDataType, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  *l = new cublasLtMatrixLayoutOpaque_t{};
  (*l)->data[0] = rows, (*l)->data[1] = cols, (*l)->data[2] = uint64_t(ld);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  delete l;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t
cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                 cublasLtMatrixLayoutAttribute_t a,
                                 const void *buf, size_t size) {
  return a < 3 ? CUBLAS_STATUS_INVALID_VALUE : setWord(l, a, buf, size);
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p) {
  *p = new cublasLtMatmulPreferenceOpaque_t{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                     cublasLtMatmulPreferenceAttributes_t a,
                                     const void *buf, size_t size) {
  return setWord(p, a, buf, size);
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *returned) {
  std::fprintf(stderr, "fake cublasLt: heuristic query %d\n", ++gQueries);
  std::memset(results, 0, sizeof results[0] * requested);
  results[0].algo.data[0] = 42;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

// D = alpha A B + beta C, column-major floats, no transposes.
cublasStatus_t
cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *alpha,
               const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
               cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
               cublasLtMatrixLayout_t, void *D, cublasLtMatrixLayout_t,
               const cublasLtMatmulAlgo_t *algo, void *, size_t, cudaStream_t) {
  if (algo && algo->data[0] != 42)
    return CUBLAS_STATUS_INVALID_VALUE; // not the heuristic's
  const int m = int(Adesc->data[0]), k = int(Adesc->data[1]),
            n = int(Bdesc->data[1]);
  float a = *static_cast<const float *>(alpha),
        b = *static_cast<const float *>(beta);
  const float *pa = static_cast<const float *>(A),
              *pb = static_cast<const float *>(B),
              *pc = static_cast<const float *>(C);
  float *pd = static_cast<float *>(D);
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < m; ++r) {
      float sum = 0;
      for (int i = 0; i < k; ++i)
        sum += pa[r + i * m] * pb[i + c * k];
      pd[r + c * m] = a * sum + b * pc[r + c * m];
    }
  return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"
