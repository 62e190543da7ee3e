// The legacy cuBLAS API's BLAS routines of level 3 (matrix-matrix): gemm,
// symm/hemm, syrk/herk, syr2k/her2k, trmm, trsm whose v2 routines remote-clang
// serves: each runs the v2 one on the implicit handle (cublas_legacy.h). The
// others are stubs that fail by name.
#include "cublas_legacy.h"

using namespace rc::cublas_legacy;

extern "C" {

void cublasSgemm(char transa, char transb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta,
                 float *C, int ldc) {
  Letters letters;
  cublasOperation_t transa_ = letters.operation(transa);
  cublasOperation_t transb_ = letters.operation(transb);
  call(letters, [&](cublasHandle_t h) {
    return cublasSgemm_v2(h, transa_, transb_, m, n, k, &alpha, A, lda, B, ldb,
                          &beta, C, ldc);
  });
}

void cublasDgemm(char transa, char transb, int m, int n, int k, double alpha,
                 const double *A, int lda, const double *B, int ldb,
                 double beta, double *C, int ldc) {
  Letters letters;
  cublasOperation_t transa_ = letters.operation(transa);
  cublasOperation_t transb_ = letters.operation(transb);
  call(letters, [&](cublasHandle_t h) {
    return cublasDgemm_v2(h, transa_, transb_, m, n, k, &alpha, A, lda, B, ldb,
                          &beta, C, ldc);
  });
}

void cublasCgemm(char transa, char transb, int m, int n, int k, cuComplex alpha,
                 const cuComplex *A, int lda, const cuComplex *B, int ldb,
                 cuComplex beta, cuComplex *C, int ldc) {
  Letters letters;
  cublasOperation_t transa_ = letters.operation(transa);
  cublasOperation_t transb_ = letters.operation(transb);
  call(letters, [&](cublasHandle_t h) {
    return cublasCgemm_v2(h, transa_, transb_, m, n, k, &alpha, A, lda, B, ldb,
                          &beta, C, ldc);
  });
}

void cublasZgemm(char transa, char transb, int m, int n, int k,
                 cuDoubleComplex alpha, const cuDoubleComplex *A, int lda,
                 const cuDoubleComplex *B, int ldb, cuDoubleComplex beta,
                 cuDoubleComplex *C, int ldc) {
  Letters letters;
  cublasOperation_t transa_ = letters.operation(transa);
  cublasOperation_t transb_ = letters.operation(transb);
  call(letters, [&](cublasHandle_t h) {
    return cublasZgemm_v2(h, transa_, transb_, m, n, k, &alpha, A, lda, B, ldb,
                          &beta, C, ldc);
  });
}

void cublasSsyrk(char uplo, char trans, int n, int k, float alpha,
                 const float *A, int lda, float beta, float *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasSsyrk_v2(h, uplo_, trans_, n, k, &alpha, A, lda, &beta, C,
                          ldc);
  });
}

void cublasDsyrk(char uplo, char trans, int n, int k, double alpha,
                 const double *A, int lda, double beta, double *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasDsyrk_v2(h, uplo_, trans_, n, k, &alpha, A, lda, &beta, C,
                          ldc);
  });
}

void cublasCsyrk(char uplo, char trans, int n, int k, cuComplex alpha,
                 const cuComplex *A, int lda, cuComplex beta, cuComplex *C,
                 int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasCsyrk_v2(h, uplo_, trans_, n, k, &alpha, A, lda, &beta, C,
                          ldc);
  });
}

void cublasZsyrk(char uplo, char trans, int n, int k, cuDoubleComplex alpha,
                 const cuDoubleComplex *A, int lda, cuDoubleComplex beta,
                 cuDoubleComplex *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasZsyrk_v2(h, uplo_, trans_, n, k, &alpha, A, lda, &beta, C,
                          ldc);
  });
}

void cublasCherk(char uplo, char trans, int n, int k, float alpha,
                 const cuComplex *A, int lda, float beta, cuComplex *C,
                 int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasCherk_v2(h, uplo_, trans_, n, k, &alpha, A, lda, &beta, C,
                          ldc);
  });
}

void cublasZherk(char uplo, char trans, int n, int k, double alpha,
                 const cuDoubleComplex *A, int lda, double beta,
                 cuDoubleComplex *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasZherk_v2(h, uplo_, trans_, n, k, &alpha, A, lda, &beta, C,
                          ldc);
  });
}

void cublasSsyr2k(char uplo, char trans, int n, int k, float alpha,
                  const float *A, int lda, const float *B, int ldb, float beta,
                  float *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasSsyr2k_v2(h, uplo_, trans_, n, k, &alpha, A, lda, B, ldb,
                           &beta, C, ldc);
  });
}

void cublasDsyr2k(char uplo, char trans, int n, int k, double alpha,
                  const double *A, int lda, const double *B, int ldb,
                  double beta, double *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasDsyr2k_v2(h, uplo_, trans_, n, k, &alpha, A, lda, B, ldb,
                           &beta, C, ldc);
  });
}

void cublasCsyr2k(char uplo, char trans, int n, int k, cuComplex alpha,
                  const cuComplex *A, int lda, const cuComplex *B, int ldb,
                  cuComplex beta, cuComplex *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasCsyr2k_v2(h, uplo_, trans_, n, k, &alpha, A, lda, B, ldb,
                           &beta, C, ldc);
  });
}

void cublasZsyr2k(char uplo, char trans, int n, int k, cuDoubleComplex alpha,
                  const cuDoubleComplex *A, int lda, const cuDoubleComplex *B,
                  int ldb, cuDoubleComplex beta, cuDoubleComplex *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasZsyr2k_v2(h, uplo_, trans_, n, k, &alpha, A, lda, B, ldb,
                           &beta, C, ldc);
  });
}

void cublasCher2k(char uplo, char trans, int n, int k, cuComplex alpha,
                  const cuComplex *A, int lda, const cuComplex *B, int ldb,
                  float beta, cuComplex *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasCher2k_v2(h, uplo_, trans_, n, k, &alpha, A, lda, B, ldb,
                           &beta, C, ldc);
  });
}

void cublasZher2k(char uplo, char trans, int n, int k, cuDoubleComplex alpha,
                  const cuDoubleComplex *A, int lda, const cuDoubleComplex *B,
                  int ldb, double beta, cuDoubleComplex *C, int ldc) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasZher2k_v2(h, uplo_, trans_, n, k, &alpha, A, lda, B, ldb,
                           &beta, C, ldc);
  });
}

void cublasSsymm(char side, char uplo, int m, int n, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta,
                 float *C, int ldc) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasSsymm_v2(h, side_, uplo_, m, n, &alpha, A, lda, B, ldb, &beta,
                          C, ldc);
  });
}

void cublasDsymm(char side, char uplo, int m, int n, double alpha,
                 const double *A, int lda, const double *B, int ldb,
                 double beta, double *C, int ldc) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasDsymm_v2(h, side_, uplo_, m, n, &alpha, A, lda, B, ldb, &beta,
                          C, ldc);
  });
}

void cublasCsymm(char side, char uplo, int m, int n, cuComplex alpha,
                 const cuComplex *A, int lda, const cuComplex *B, int ldb,
                 cuComplex beta, cuComplex *C, int ldc) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasCsymm_v2(h, side_, uplo_, m, n, &alpha, A, lda, B, ldb, &beta,
                          C, ldc);
  });
}

void cublasZsymm(char side, char uplo, int m, int n, cuDoubleComplex alpha,
                 const cuDoubleComplex *A, int lda, const cuDoubleComplex *B,
                 int ldb, cuDoubleComplex beta, cuDoubleComplex *C, int ldc) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasZsymm_v2(h, side_, uplo_, m, n, &alpha, A, lda, B, ldb, &beta,
                          C, ldc);
  });
}

void cublasChemm(char side, char uplo, int m, int n, cuComplex alpha,
                 const cuComplex *A, int lda, const cuComplex *B, int ldb,
                 cuComplex beta, cuComplex *C, int ldc) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasChemm_v2(h, side_, uplo_, m, n, &alpha, A, lda, B, ldb, &beta,
                          C, ldc);
  });
}

void cublasZhemm(char side, char uplo, int m, int n, cuDoubleComplex alpha,
                 const cuDoubleComplex *A, int lda, const cuDoubleComplex *B,
                 int ldb, cuDoubleComplex beta, cuDoubleComplex *C, int ldc) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasZhemm_v2(h, side_, uplo_, m, n, &alpha, A, lda, B, ldb, &beta,
                          C, ldc);
  });
}

void cublasStrsm(char side, char uplo, char transa, char diag, int m, int n,
                 float alpha, const float *A, int lda, float *B, int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasStrsm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb);
  });
}

void cublasDtrsm(char side, char uplo, char transa, char diag, int m, int n,
                 double alpha, const double *A, int lda, double *B, int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasDtrsm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb);
  });
}

void cublasCtrsm(char side, char uplo, char transa, char diag, int m, int n,
                 cuComplex alpha, const cuComplex *A, int lda, cuComplex *B,
                 int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasCtrsm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb);
  });
}

void cublasZtrsm(char side, char uplo, char transa, char diag, int m, int n,
                 cuDoubleComplex alpha, const cuDoubleComplex *A, int lda,
                 cuDoubleComplex *B, int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasZtrsm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb);
  });
}

// The legacy trmm overwrites B; v2's writes C, the same in place when C is B.
void cublasStrmm(char side, char uplo, char transa, char diag, int m, int n,
                 float alpha, const float *A, int lda, float *B, int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasStrmm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb, B, ldb);
  });
}

void cublasDtrmm(char side, char uplo, char transa, char diag, int m, int n,
                 double alpha, const double *A, int lda, double *B, int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasDtrmm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb, B, ldb);
  });
}

void cublasCtrmm(char side, char uplo, char transa, char diag, int m, int n,
                 cuComplex alpha, const cuComplex *A, int lda, cuComplex *B,
                 int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasCtrmm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb, B, ldb);
  });
}

void cublasZtrmm(char side, char uplo, char transa, char diag, int m, int n,
                 cuDoubleComplex alpha, const cuDoubleComplex *A, int lda,
                 cuDoubleComplex *B, int ldb) {
  Letters letters;
  cublasSideMode_t side_ = letters.side(side);
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t transa_ = letters.operation(transa);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasZtrmm_v2(h, side_, uplo_, transa_, diag_, m, n, &alpha, A, lda,
                          B, ldb, B, ldb);
  });
}

} // extern "C"
