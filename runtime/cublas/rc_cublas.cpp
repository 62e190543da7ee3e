// librc_cublas.so: the cuBLAS entry points remote-clang programs link
// (the names the CUDA 12.4 cublas_v2.h produces). Handles are client-chosen
// IDs, so creating one costs no round trip; stream and math mode are kept
// here and travel with every compute call; each compute call becomes one
// Cublas* command of the runtime's batch, like a kernel launch (through
// rc_cublas_abi.h). Argument errors cuBLAS reports at the call are reported
// here; device pointers are checked by rc-server, whose errors name the call
// and surface at the next synchronization (docs/cublas.md).
#include "rc_cublas_abi.h"

#include <cublas_v2.h>

#include "cublas_pointer_mode.h"

#include "rc/cublas_scalars.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "lib_forward.h"

extern "C" int __rc_report_unsupported(const char *call, const char *library);

namespace {

struct Handle {
  uint64_t id;
  cudaStream_t stream = nullptr;
  bool streamSent = false; // the server's handle has `stream` (rows use it)
  cublasMath_t mathMode = CUBLAS_DEFAULT_MATH;
  // Where alpha, beta and results live: travels with every compute call
  // (rows: wire::LibCall.scalars_on_device; GEMMs: CublasGemm's).
  cublasPointerMode_t pointerMode = CUBLAS_POINTER_MODE_HOST;
};

// Live handles: a destroyed or made-up handle is refused, never followed.
std::mutex mu;
std::unordered_map<cublasHandle_t, Handle> handles;
uint64_t nextId = 1;

bool lookup(cublasHandle_t h, Handle *out) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles.find(h);
  if (it == handles.end())
    return false;
  *out = it->second;
  return true;
}

cublasStatus_t fromCuda(int err) {
  switch (cudaError_t(err)) {
  case cudaSuccess:
    return CUBLAS_STATUS_SUCCESS;
  case cudaErrorInvalidValue:
  case cudaErrorInvalidResourceHandle:
    return CUBLAS_STATUS_INVALID_VALUE;
  case cudaErrorNotSupported:
  case cudaErrorStreamCaptureUnsupported:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  case cudaErrorNoDevice:
  case cudaErrorInitializationError:
  case cudaErrorDevicesUnavailable:
  case cudaErrorInsufficientDriver:
    return CUBLAS_STATUS_NOT_INITIALIZED;
  default:
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
}

cublasStatus_t unsupported(const char *call) {
  __rc_report_unsupported(call, "cuBLAS");
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

bool validOp(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

int64_t maxInt(int64_t a, int64_t b) { return a > b ? a : b; }

} // namespace

namespace {

// Everything cuBLAS checks before touching the device (it answers
// CUBLAS_STATUS_INVALID_VALUE for these), then one batched command.
cublasStatus_t submitGemm(cublasHandle_t handle, const char *call,
                          RcCublasGemmApi api, cublasOperation_t ta,
                          cublasOperation_t tb, int m, int n, int k,
                          const void *alpha, const void *beta,
                          RcCublasOperand a, RcCublasOperand b,
                          RcCublasOperand c, int batchCount,
                          cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  Handle h;
  if (!lookup(handle, &h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  uint32_t scalar = rc::cublasScalarSize(compute);
  if (scalar == 0)
    return unsupported("cuBLAS gemm with a complex or unknown compute type");
  if (!alpha || !beta || !validOp(ta) || !validOp(tb) || m < 0 || n < 0 ||
      k < 0 || batchCount < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  int64_t rowsA = ta == CUBLAS_OP_N ? m : k;
  int64_t rowsB = tb == CUBLAS_OP_N ? k : n;
  if (a.ld < maxInt(1, rowsA) || b.ld < maxInt(1, rowsB) || c.ld < maxInt(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  RcCublasGemm g{};
  g.call = call;
  g.api = api;
  g.handle = h.id;
  g.stream = h.stream;
  g.mathMode = uint32_t(h.mathMode);
  g.transA = ta, g.transB = tb, g.m = m, g.n = n, g.k = k;
  // Host scalars travel by value; device ones as their addresses, read by
  // the GEMM on the GPU in stream order.
  g.scalarsOnDevice = h.pointerMode == CUBLAS_POINTER_MODE_DEVICE;
  if (g.scalarsOnDevice) {
    uint64_t a = reinterpret_cast<uintptr_t>(alpha);
    uint64_t b = reinterpret_cast<uintptr_t>(beta);
    std::memcpy(g.alpha, &a, 8);
    std::memcpy(g.beta, &b, 8);
  } else {
    std::memcpy(g.alpha, alpha, scalar);
    std::memcpy(g.beta, beta, scalar);
  }
  g.scalarSize = scalar;
  g.a = a, g.b = b, g.c = c;
  g.batchCount = batchCount;
  g.computeType = compute;
  g.algo = algo;
  return fromCuda(__rc_cublas_gemm(&g));
}

RcCublasOperand operand(const void *p, cudaDataType t, int64_t ld,
                        int64_t stride = 0) {
  RcCublasOperand o{};
  o.ptr = reinterpret_cast<uintptr_t>(p);
  o.ld = ld;
  o.stride = stride;
  o.type = t;
  return o;
}

} // namespace

rc::lib::Scalars rc::lib::scalarsOf(cublasHandle_t handle) {
  Handle h;
  return lookup(handle, &h) && h.pointerMode == CUBLAS_POINTER_MODE_DEVICE
             ? Scalars::Device
             : Scalars::Host;
}

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu);
    // The opaque handle is a unique non-null token, nothing behind it, and
    // the server's name for it too, so that rows (library calls,
    // docs/libraries.md) can pass it as they pass any library object.
    id = uintptr_t(0x7c000000) + nextId++ * 16;
  }
  cublasStatus_t st = fromCuda(__rc_cublas_create(id));
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  auto h = reinterpret_cast<cublasHandle_t>(id);
  std::lock_guard<std::mutex> lock(mu);
  handles[h] = Handle{id};
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  Handle h;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = handles.find(handle);
    if (it == handles.end())
      return CUBLAS_STATUS_NOT_INITIALIZED;
    h = it->second;
    handles.erase(it);
  }
  return fromCuda(__rc_cublas_destroy(h.id));
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = handles.find(handle);
    if (it == handles.end())
      return CUBLAS_STATUS_NOT_INITIALIZED;
    // ggml sets the same stream before every GEMM: only a change goes out.
    if (it->second.stream == stream && it->second.streamSent)
      return CUBLAS_STATUS_SUCCESS;
    it->second.stream = stream; // GEMMs carry it
    it->second.streamSent = true;
  }
  // The level-1/2 rows find it on the server's handle.
  return rc::lib::forward(rc::lib::rows::cublasSetStream_v2,
                          CUBLAS_STATUS_INTERNAL_ERROR, handle, stream);
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *stream) {
  Handle h;
  if (!lookup(handle, &h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!stream)
    return CUBLAS_STATUS_INVALID_VALUE;
  *stream = h.stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles.find(handle);
  if (it == handles.end())
    return CUBLAS_STATUS_NOT_INITIALIZED;
  it->second.mathMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode) {
  Handle h;
  if (!lookup(handle, &h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode)
    return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h.mathMode;
  return CUBLAS_STATUS_SUCCESS;
}

// Kept here and sent with every compute call: no round trip of its own.
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle,
                                       cublasPointerMode_t mode) {
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles.find(handle);
  if (it == handles.end())
    return CUBLAS_STATUS_NOT_INITIALIZED;
  it->second.pointerMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle,
                                       cublasPointerMode_t *mode) {
  Handle h;
  if (!lookup(handle, &h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode)
    return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h.pointerMode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                     size_t size) {
  Handle h;
  if (!lookup(handle, &h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (size && !workspace)
    return CUBLAS_STATUS_INVALID_VALUE;
  return fromCuda(__rc_cublas_set_workspace(
      h.id, reinterpret_cast<uintptr_t>(workspace), size));
}

// cuBLAS's own logging has nothing to log here: accepted and ignored.
cublasStatus_t cublasLoggerConfigure(int, int, int, const char *) {
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int *version) {
  if (!version)
    return CUBLAS_STATUS_INVALID_VALUE;
  *version = CUBLAS_VERSION; // the headers the client was built with
  return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "<unknown>";
}

const char *cublasGetStatusString(cublasStatus_t status) {
  return cublasGetStatusName(status);
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t ta,
                              cublasOperation_t tb, int m, int n, int k,
                              const float *alpha, const float *A, int lda,
                              const float *B, int ldb, const float *beta,
                              float *C, int ldc) {
  return submitGemm(handle, "cublasSgemm_v2", kRcSgemm, ta, tb, m, n, k, alpha,
                    beta, operand(A, CUDA_R_32F, lda),
                    operand(B, CUDA_R_32F, ldb), operand(C, CUDA_R_32F, ldc), 1,
                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t
cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta,
                          cublasOperation_t tb, int m, int n, int k,
                          const float *alpha, const float *A, int lda,
                          long long int strideA, const float *B, int ldb,
                          long long int strideB, const float *beta, float *C,
                          int ldc, long long int strideC, int batchCount) {
  return submitGemm(handle, "cublasSgemmStridedBatched", kRcSgemmStridedBatched,
                    ta, tb, m, n, k, alpha, beta,
                    operand(A, CUDA_R_32F, lda, strideA),
                    operand(B, CUDA_R_32F, ldb, strideB),
                    operand(C, CUDA_R_32F, ldc, strideC), batchCount,
                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t ta,
                                  cublasOperation_t tb, int m, int n, int k,
                                  const float *alpha, const float *const A[],
                                  int lda, const float *const B[], int ldb,
                                  const float *beta, float *const C[], int ldc,
                                  int batchCount) {
  return submitGemm(handle, "cublasSgemmBatched", kRcSgemmBatched, ta, tb, m, n,
                    k, alpha, beta, operand(A, CUDA_R_32F, lda),
                    operand(B, CUDA_R_32F, ldb), operand(C, CUDA_R_32F, ldc),
                    batchCount, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t
cublasGemmEx(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
             int m, int n, int k, const void *alpha, const void *A,
             cudaDataType Atype, int lda, const void *B, cudaDataType Btype,
             int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
             cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return submitGemm(handle, "cublasGemmEx", kRcGemmEx, ta, tb, m, n, k, alpha,
                    beta, operand(A, Atype, lda), operand(B, Btype, ldb),
                    operand(C, Ctype, ldc), 1, computeType, algo);
}

cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
    int n, int k, const void *alpha, const void *A, cudaDataType Atype, int lda,
    long long int strideA, const void *B, cudaDataType Btype, int ldb,
    long long int strideB, const void *beta, void *C, cudaDataType Ctype,
    int ldc, long long int strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return submitGemm(
      handle, "cublasGemmStridedBatchedEx", kRcGemmStridedBatchedEx, ta, tb, m,
      n, k, alpha, beta, operand(A, Atype, lda, strideA),
      operand(B, Btype, ldb, strideB), operand(C, Ctype, ldc, strideC),
      batchCount, computeType, algo);
}

cublasStatus_t cublasGemmBatchedEx(
    cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
    int n, int k, const void *alpha, const void *const A[], cudaDataType Atype,
    int lda, const void *const B[], cudaDataType Btype, int ldb,
    const void *beta, void *const C[], cudaDataType Ctype, int ldc,
    int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return submitGemm(handle, "cublasGemmBatchedEx", kRcGemmBatchedEx, ta, tb, m,
                    n, k, alpha, beta, operand(A, Atype, lda),
                    operand(B, Btype, ldb), operand(C, Ctype, ldc), batchCount,
                    computeType, algo);
}

// Double and half GEMMs travel as their Ex forms with 64F / 16F types and
// compute (a combination cublasGemmEx documents, same kernels): no wire API
// of their own. Errors still name the call the program made.
cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t ta,
                              cublasOperation_t tb, int m, int n, int k,
                              const double *alpha, const double *A, int lda,
                              const double *B, int ldb, const double *beta,
                              double *C, int ldc) {
  return submitGemm(handle, "cublasDgemm_v2", kRcGemmEx, ta, tb, m, n, k, alpha,
                    beta, operand(A, CUDA_R_64F, lda),
                    operand(B, CUDA_R_64F, ldb), operand(C, CUDA_R_64F, ldc), 1,
                    CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t
cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta,
                          cublasOperation_t tb, int m, int n, int k,
                          const double *alpha, const double *A, int lda,
                          long long int strideA, const double *B, int ldb,
                          long long int strideB, const double *beta, double *C,
                          int ldc, long long int strideC, int batchCount) {
  return submitGemm(handle, "cublasDgemmStridedBatched",
                    kRcGemmStridedBatchedEx, ta, tb, m, n, k, alpha, beta,
                    operand(A, CUDA_R_64F, lda, strideA),
                    operand(B, CUDA_R_64F, ldb, strideB),
                    operand(C, CUDA_R_64F, ldc, strideC), batchCount,
                    CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t ta,
                                  cublasOperation_t tb, int m, int n, int k,
                                  const double *alpha, const double *const A[],
                                  int lda, const double *const B[], int ldb,
                                  const double *beta, double *const C[],
                                  int ldc, int batchCount) {
  return submitGemm(handle, "cublasDgemmBatched", kRcGemmBatchedEx, ta, tb, m,
                    n, k, alpha, beta, operand(A, CUDA_R_64F, lda),
                    operand(B, CUDA_R_64F, ldb), operand(C, CUDA_R_64F, ldc),
                    batchCount, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t ta,
                           cublasOperation_t tb, int m, int n, int k,
                           const __half *alpha, const __half *A, int lda,
                           const __half *B, int ldb, const __half *beta,
                           __half *C, int ldc) {
  return submitGemm(handle, "cublasHgemm", kRcGemmEx, ta, tb, m, n, k, alpha,
                    beta, operand(A, CUDA_R_16F, lda),
                    operand(B, CUDA_R_16F, ldb), operand(C, CUDA_R_16F, ldc), 1,
                    CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t
cublasHgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta,
                          cublasOperation_t tb, int m, int n, int k,
                          const __half *alpha, const __half *A, int lda,
                          long long int strideA, const __half *B, int ldb,
                          long long int strideB, const __half *beta, __half *C,
                          int ldc, long long int strideC, int batchCount) {
  return submitGemm(handle, "cublasHgemmStridedBatched",
                    kRcGemmStridedBatchedEx, ta, tb, m, n, k, alpha, beta,
                    operand(A, CUDA_R_16F, lda, strideA),
                    operand(B, CUDA_R_16F, ldb, strideB),
                    operand(C, CUDA_R_16F, ldc, strideC), batchCount,
                    CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasStrsmBatched(cublasHandle_t handle, cublasSideMode_t side,
                                  cublasFillMode_t uplo,
                                  cublasOperation_t trans,
                                  cublasDiagType_t diag, int m, int n,
                                  const float *alpha, const float *const A[],
                                  int lda, float *const B[], int ldb,
                                  int batchCount) {
  Handle h;
  if (!lookup(handle, &h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  // Its alpha travels by value in the wire command.
  if (h.pointerMode == CUBLAS_POINTER_MODE_DEVICE)
    return unsupported("cublasStrsmBatched with CUBLAS_POINTER_MODE_DEVICE");
  int64_t order = side == CUBLAS_SIDE_LEFT ? m : n;
  if (!alpha || !validOp(trans) || m < 0 || n < 0 || batchCount < 0 ||
      lda < maxInt(1, order) || ldb < maxInt(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  RcCublasTrsm t{};
  t.handle = h.id;
  t.stream = h.stream;
  t.mathMode = uint32_t(h.mathMode);
  t.side = side, t.uplo = uplo, t.trans = trans, t.diag = diag;
  t.m = m, t.n = n, t.alpha = *alpha;
  t.a = reinterpret_cast<uintptr_t>(A), t.lda = lda;
  t.b = reinterpret_cast<uintptr_t>(B), t.ldb = ldb;
  t.batchCount = batchCount;
  return fromCuda(__rc_cublas_trsm_batched(&t));
}

} // extern "C"

// Batched LU (getrf) and inverse from it (getri): what cuBLAS checks at
// the call, then one command; the server checks every matrix, the pivots
// and the info array against the session's memory.
namespace {
cublasStatus_t submitLu(cublasHandle_t handle, const char *call, bool inverse,
                        int32_t type, int n, const void *A, int lda,
                        const int *P, void *C, int ldc, int *info,
                        int batchSize) {
  Handle h;
  if (!lookup(handle, &h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n < 0 || lda < maxInt(1, n) || batchSize < 0 || !info ||
      (inverse && ldc < maxInt(1, n)))
    return CUBLAS_STATUS_INVALID_VALUE;
  RcCublasLu lu{};
  lu.call = call;
  lu.handle = h.id;
  lu.stream = h.stream;
  lu.mathMode = uint32_t(h.mathMode);
  lu.inverse = inverse;
  lu.type = type;
  lu.n = n;
  lu.a = reinterpret_cast<uintptr_t>(A), lu.lda = lda;
  lu.c = reinterpret_cast<uintptr_t>(C), lu.ldc = ldc;
  lu.pivots = reinterpret_cast<uintptr_t>(P);
  lu.info = reinterpret_cast<uintptr_t>(info);
  lu.batchCount = batchSize;
  return fromCuda(__rc_cublas_lu_batched(&lu));
}
} // namespace

extern "C" {

cublasStatus_t cublasSgetrfBatched(cublasHandle_t handle, int n,
                                   float *const A[], int lda, int *P, int *info,
                                   int batchSize) {
  return submitLu(handle, "cublasSgetrfBatched", false, CUDA_R_32F, n, A, lda,
                  P, nullptr, 0, info, batchSize);
}

cublasStatus_t cublasDgetrfBatched(cublasHandle_t handle, int n,
                                   double *const A[], int lda, int *P,
                                   int *info, int batchSize) {
  return submitLu(handle, "cublasDgetrfBatched", false, CUDA_R_64F, n, A, lda,
                  P, nullptr, 0, info, batchSize);
}

cublasStatus_t cublasCgetrfBatched(cublasHandle_t handle, int n,
                                   cuComplex *const A[], int lda, int *P,
                                   int *info, int batchSize) {
  return submitLu(handle, "cublasCgetrfBatched", false, CUDA_C_32F, n, A, lda,
                  P, nullptr, 0, info, batchSize);
}

cublasStatus_t cublasZgetrfBatched(cublasHandle_t handle, int n,
                                   cuDoubleComplex *const A[], int lda, int *P,
                                   int *info, int batchSize) {
  return submitLu(handle, "cublasZgetrfBatched", false, CUDA_C_64F, n, A, lda,
                  P, nullptr, 0, info, batchSize);
}

cublasStatus_t cublasSgetriBatched(cublasHandle_t handle, int n,
                                   const float *const A[], int lda,
                                   const int *P, float *const C[], int ldc,
                                   int *info, int batchSize) {
  return submitLu(handle, "cublasSgetriBatched", true, CUDA_R_32F, n, A, lda, P,
                  const_cast<float **>(C), ldc, info, batchSize);
}

cublasStatus_t cublasDgetriBatched(cublasHandle_t handle, int n,
                                   const double *const A[], int lda,
                                   const int *P, double *const C[], int ldc,
                                   int *info, int batchSize) {
  return submitLu(handle, "cublasDgetriBatched", true, CUDA_R_64F, n, A, lda, P,
                  const_cast<double **>(C), ldc, info, batchSize);
}

cublasStatus_t cublasCgetriBatched(cublasHandle_t handle, int n,
                                   const cuComplex *const A[], int lda,
                                   const int *P, cuComplex *const C[], int ldc,
                                   int *info, int batchSize) {
  return submitLu(handle, "cublasCgetriBatched", true, CUDA_C_32F, n, A, lda, P,
                  const_cast<cuComplex **>(C), ldc, info, batchSize);
}

cublasStatus_t cublasZgetriBatched(cublasHandle_t handle, int n,
                                   const cuDoubleComplex *const A[], int lda,
                                   const int *P, cuDoubleComplex *const C[],
                                   int ldc, int *info, int batchSize) {
  return submitLu(handle, "cublasZgetriBatched", true, CUDA_C_64F, n, A, lda, P,
                  const_cast<cuDoubleComplex **>(C), ldc, info, batchSize);
}

} // extern "C"
