/* The private ABI between librc_cublas.so (the cuBLAS entry points, argument
   checks) and librc_cudart.so (the connection and the batch): plain C structs,
   so no C++ type crosses the library boundary. Both sides are built from
   the same tree; this is not an application interface. */
#ifndef RC_CUBLAS_ABI_H
#define RC_CUBLAS_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RcCublasOperand {
  uint64_t ptr; /* matrix, or the device array of pointers (*Batched) */
  int64_t ld;
  int64_t stride; /* strided batches, elements */
  int32_t type;   /* cudaDataType */
} RcCublasOperand;

/* rc::wire::CublasGemmApi's numbering (schema/protocol.fbs); cublas_bridge.cpp
   checks at compile time that the two agree. */
enum RcCublasGemmApi {
  kRcSgemm = 0,
  kRcGemmEx = 1,
  kRcSgemmStridedBatched = 2,
  kRcGemmStridedBatchedEx = 3,
  kRcSgemmBatched = 4,
  kRcGemmBatchedEx = 5
};

typedef struct RcCublasGemm {
  const char *call; /* exported name, a string literal */
  int32_t api;      /* enum RcCublasGemmApi */
  uint64_t handle;
  void *stream; /* cudaStream_t */
  uint32_t mathMode;
  int32_t transA, transB, m, n, k;
  uint8_t alpha[8], beta[8]; /* host scalars, by value; or (scalarsOnDevice)
                                their device addresses */
  uint32_t scalarSize;       /* 2, 4 or 8 */
  int32_t scalarsOnDevice;   /* CUBLAS_POINTER_MODE_DEVICE */
  RcCublasOperand a, b, c;
  int32_t batchCount, computeType, algo;
} RcCublasGemm;

typedef struct RcCublasTrsm {
  uint64_t handle;
  void *stream;
  uint32_t mathMode;
  int32_t side, uplo, trans, diag, m, n;
  float alpha;
  uint64_t a, b; /* device arrays of batchCount pointers */
  int64_t lda, ldb;
  int32_t batchCount;
} RcCublasTrsm;

typedef struct RcCublasLu {
  const char *call; /* exported name, a string literal */
  uint64_t handle;
  void *stream;
  uint32_t mathMode;
  int32_t inverse; /* getri */
  int32_t type;    /* cudaDataType */
  int32_t n;
  uint64_t a, c; /* device arrays of batchCount pointers (c: getri) */
  int64_t lda, ldc;
  uint64_t pivots, info; /* device memory */
  int32_t batchCount;
} RcCublasLu;

/* Each returns a cudaError_t: cudaSuccess once the command is batched. */
int __rc_cublas_create(uint64_t handle);
int __rc_cublas_destroy(uint64_t handle);
int __rc_cublas_set_workspace(uint64_t handle, uint64_t addr, uint64_t size);
int __rc_cublas_gemm(const RcCublasGemm *g);
int __rc_cublas_trsm_batched(const RcCublasTrsm *t);
int __rc_cublas_lu_batched(const RcCublasLu *lu);

#ifdef __cplusplus
}
#endif

#endif
