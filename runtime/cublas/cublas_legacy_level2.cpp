// The legacy cuBLAS API's BLAS routines of level 2 (matrix-vector): gemv, ger,
// symv/hemv, syr/her, trmv, trsv whose v2 routines remote-clang serves: each
// runs the v2 one on the implicit handle (cublas_legacy.h). The others are
// stubs that fail by name.
#include "cublas_legacy.h"

using namespace rc::cublas_legacy;

extern "C" {

void cublasSgemv(char trans, int m, int n, float alpha, const float *A, int lda,
                 const float *x, int incx, float beta, float *y, int incy) {
  Letters letters;
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasSgemv_v2(h, trans_, m, n, &alpha, A, lda, x, incx, &beta, y,
                          incy);
  });
}

void cublasDgemv(char trans, int m, int n, double alpha, const double *A,
                 int lda, const double *x, int incx, double beta, double *y,
                 int incy) {
  Letters letters;
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasDgemv_v2(h, trans_, m, n, &alpha, A, lda, x, incx, &beta, y,
                          incy);
  });
}

void cublasCgemv(char trans, int m, int n, cuComplex alpha, const cuComplex *A,
                 int lda, const cuComplex *x, int incx, cuComplex beta,
                 cuComplex *y, int incy) {
  Letters letters;
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasCgemv_v2(h, trans_, m, n, &alpha, A, lda, x, incx, &beta, y,
                          incy);
  });
}

void cublasZgemv(char trans, int m, int n, cuDoubleComplex alpha,
                 const cuDoubleComplex *A, int lda, const cuDoubleComplex *x,
                 int incx, cuDoubleComplex beta, cuDoubleComplex *y, int incy) {
  Letters letters;
  cublasOperation_t trans_ = letters.operation(trans);
  call(letters, [&](cublasHandle_t h) {
    return cublasZgemv_v2(h, trans_, m, n, &alpha, A, lda, x, incx, &beta, y,
                          incy);
  });
}

void cublasStrmv(char uplo, char trans, char diag, int n, const float *A,
                 int lda, float *x, int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasStrmv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasDtrmv(char uplo, char trans, char diag, int n, const double *A,
                 int lda, double *x, int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasDtrmv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasCtrmv(char uplo, char trans, char diag, int n, const cuComplex *A,
                 int lda, cuComplex *x, int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasCtrmv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasZtrmv(char uplo, char trans, char diag, int n,
                 const cuDoubleComplex *A, int lda, cuDoubleComplex *x,
                 int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasZtrmv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasStrsv(char uplo, char trans, char diag, int n, const float *A,
                 int lda, float *x, int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasStrsv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasDtrsv(char uplo, char trans, char diag, int n, const double *A,
                 int lda, double *x, int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasDtrsv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasCtrsv(char uplo, char trans, char diag, int n, const cuComplex *A,
                 int lda, cuComplex *x, int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasCtrsv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasZtrsv(char uplo, char trans, char diag, int n,
                 const cuDoubleComplex *A, int lda, cuDoubleComplex *x,
                 int incx) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  cublasOperation_t trans_ = letters.operation(trans);
  cublasDiagType_t diag_ = letters.diagonal(diag);
  call(letters, [&](cublasHandle_t h) {
    return cublasZtrsv_v2(h, uplo_, trans_, diag_, n, A, lda, x, incx);
  });
}

void cublasSsymv(char uplo, int n, float alpha, const float *A, int lda,
                 const float *x, int incx, float beta, float *y, int incy) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasSsymv_v2(h, uplo_, n, &alpha, A, lda, x, incx, &beta, y, incy);
  });
}

void cublasDsymv(char uplo, int n, double alpha, const double *A, int lda,
                 const double *x, int incx, double beta, double *y, int incy) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasDsymv_v2(h, uplo_, n, &alpha, A, lda, x, incx, &beta, y, incy);
  });
}

void cublasChemv(char uplo, int n, cuComplex alpha, const cuComplex *A, int lda,
                 const cuComplex *x, int incx, cuComplex beta, cuComplex *y,
                 int incy) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasChemv_v2(h, uplo_, n, &alpha, A, lda, x, incx, &beta, y, incy);
  });
}

void cublasZhemv(char uplo, int n, cuDoubleComplex alpha,
                 const cuDoubleComplex *A, int lda, const cuDoubleComplex *x,
                 int incx, cuDoubleComplex beta, cuDoubleComplex *y, int incy) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasZhemv_v2(h, uplo_, n, &alpha, A, lda, x, incx, &beta, y, incy);
  });
}

void cublasSger(int m, int n, float alpha, const float *x, int incx,
                const float *y, int incy, float *A, int lda) {
  call([&](cublasHandle_t h) {
    return cublasSger_v2(h, m, n, &alpha, x, incx, y, incy, A, lda);
  });
}

void cublasDger(int m, int n, double alpha, const double *x, int incx,
                const double *y, int incy, double *A, int lda) {
  call([&](cublasHandle_t h) {
    return cublasDger_v2(h, m, n, &alpha, x, incx, y, incy, A, lda);
  });
}

void cublasCgeru(int m, int n, cuComplex alpha, const cuComplex *x, int incx,
                 const cuComplex *y, int incy, cuComplex *A, int lda) {
  call([&](cublasHandle_t h) {
    return cublasCgeru_v2(h, m, n, &alpha, x, incx, y, incy, A, lda);
  });
}

void cublasCgerc(int m, int n, cuComplex alpha, const cuComplex *x, int incx,
                 const cuComplex *y, int incy, cuComplex *A, int lda) {
  call([&](cublasHandle_t h) {
    return cublasCgerc_v2(h, m, n, &alpha, x, incx, y, incy, A, lda);
  });
}

void cublasZgeru(int m, int n, cuDoubleComplex alpha, const cuDoubleComplex *x,
                 int incx, const cuDoubleComplex *y, int incy,
                 cuDoubleComplex *A, int lda) {
  call([&](cublasHandle_t h) {
    return cublasZgeru_v2(h, m, n, &alpha, x, incx, y, incy, A, lda);
  });
}

void cublasZgerc(int m, int n, cuDoubleComplex alpha, const cuDoubleComplex *x,
                 int incx, const cuDoubleComplex *y, int incy,
                 cuDoubleComplex *A, int lda) {
  call([&](cublasHandle_t h) {
    return cublasZgerc_v2(h, m, n, &alpha, x, incx, y, incy, A, lda);
  });
}

void cublasSsyr(char uplo, int n, float alpha, const float *x, int incx,
                float *A, int lda) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasSsyr_v2(h, uplo_, n, &alpha, x, incx, A, lda);
  });
}

void cublasDsyr(char uplo, int n, double alpha, const double *x, int incx,
                double *A, int lda) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasDsyr_v2(h, uplo_, n, &alpha, x, incx, A, lda);
  });
}

void cublasCher(char uplo, int n, float alpha, const cuComplex *x, int incx,
                cuComplex *A, int lda) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasCher_v2(h, uplo_, n, &alpha, x, incx, A, lda);
  });
}

void cublasZher(char uplo, int n, double alpha, const cuDoubleComplex *x,
                int incx, cuDoubleComplex *A, int lda) {
  Letters letters;
  cublasFillMode_t uplo_ = letters.fill(uplo);
  call(letters, [&](cublasHandle_t h) {
    return cublasZher_v2(h, uplo_, n, &alpha, x, incx, A, lda);
  });
}

} // extern "C"
