// The legacy cuBLAS API's BLAS routines of level 1 (vectors): dot products,
// norms, sums, index of the largest and smallest, axpy, copy, scal, swap, rot
// whose v2 routines remote-clang serves: each runs the v2 one on the
// implicit handle (cublas_legacy.h). The others are stubs that fail by name.
#include "cublas_legacy.h"

using namespace rc::cublas_legacy;

extern "C" {

float cublasSnrm2(int n, const float *x, int incx) {
  return result<float>([&](cublasHandle_t h, float *r) {
    return cublasSnrm2_v2(h, n, x, incx, r);
  });
}

double cublasDnrm2(int n, const double *x, int incx) {
  return result<double>([&](cublasHandle_t h, double *r) {
    return cublasDnrm2_v2(h, n, x, incx, r);
  });
}

float cublasScnrm2(int n, const cuComplex *x, int incx) {
  return result<float>([&](cublasHandle_t h, float *r) {
    return cublasScnrm2_v2(h, n, x, incx, r);
  });
}

double cublasDznrm2(int n, const cuDoubleComplex *x, int incx) {
  return result<double>([&](cublasHandle_t h, double *r) {
    return cublasDznrm2_v2(h, n, x, incx, r);
  });
}

float cublasSdot(int n, const float *x, int incx, const float *y, int incy) {
  return result<float>([&](cublasHandle_t h, float *r) {
    return cublasSdot_v2(h, n, x, incx, y, incy, r);
  });
}

double cublasDdot(int n, const double *x, int incx, const double *y, int incy) {
  return result<double>([&](cublasHandle_t h, double *r) {
    return cublasDdot_v2(h, n, x, incx, y, incy, r);
  });
}

cuComplex cublasCdotu(int n, const cuComplex *x, int incx, const cuComplex *y,
                      int incy) {
  return result<cuComplex>([&](cublasHandle_t h, cuComplex *r) {
    return cublasCdotu_v2(h, n, x, incx, y, incy, r);
  });
}

cuComplex cublasCdotc(int n, const cuComplex *x, int incx, const cuComplex *y,
                      int incy) {
  return result<cuComplex>([&](cublasHandle_t h, cuComplex *r) {
    return cublasCdotc_v2(h, n, x, incx, y, incy, r);
  });
}

cuDoubleComplex cublasZdotu(int n, const cuDoubleComplex *x, int incx,
                            const cuDoubleComplex *y, int incy) {
  return result<cuDoubleComplex>([&](cublasHandle_t h, cuDoubleComplex *r) {
    return cublasZdotu_v2(h, n, x, incx, y, incy, r);
  });
}

cuDoubleComplex cublasZdotc(int n, const cuDoubleComplex *x, int incx,
                            const cuDoubleComplex *y, int incy) {
  return result<cuDoubleComplex>([&](cublasHandle_t h, cuDoubleComplex *r) {
    return cublasZdotc_v2(h, n, x, incx, y, incy, r);
  });
}

void cublasSscal(int n, float alpha, float *x, int incx) {
  call([&](cublasHandle_t h) { return cublasSscal_v2(h, n, &alpha, x, incx); });
}

void cublasDscal(int n, double alpha, double *x, int incx) {
  call([&](cublasHandle_t h) { return cublasDscal_v2(h, n, &alpha, x, incx); });
}

void cublasCscal(int n, cuComplex alpha, cuComplex *x, int incx) {
  call([&](cublasHandle_t h) { return cublasCscal_v2(h, n, &alpha, x, incx); });
}

void cublasZscal(int n, cuDoubleComplex alpha, cuDoubleComplex *x, int incx) {
  call([&](cublasHandle_t h) { return cublasZscal_v2(h, n, &alpha, x, incx); });
}

void cublasCsscal(int n, float alpha, cuComplex *x, int incx) {
  call(
      [&](cublasHandle_t h) { return cublasCsscal_v2(h, n, &alpha, x, incx); });
}

void cublasZdscal(int n, double alpha, cuDoubleComplex *x, int incx) {
  call(
      [&](cublasHandle_t h) { return cublasZdscal_v2(h, n, &alpha, x, incx); });
}

void cublasSaxpy(int n, float alpha, const float *x, int incx, float *y,
                 int incy) {
  call([&](cublasHandle_t h) {
    return cublasSaxpy_v2(h, n, &alpha, x, incx, y, incy);
  });
}

void cublasDaxpy(int n, double alpha, const double *x, int incx, double *y,
                 int incy) {
  call([&](cublasHandle_t h) {
    return cublasDaxpy_v2(h, n, &alpha, x, incx, y, incy);
  });
}

void cublasCaxpy(int n, cuComplex alpha, const cuComplex *x, int incx,
                 cuComplex *y, int incy) {
  call([&](cublasHandle_t h) {
    return cublasCaxpy_v2(h, n, &alpha, x, incx, y, incy);
  });
}

void cublasZaxpy(int n, cuDoubleComplex alpha, const cuDoubleComplex *x,
                 int incx, cuDoubleComplex *y, int incy) {
  call([&](cublasHandle_t h) {
    return cublasZaxpy_v2(h, n, &alpha, x, incx, y, incy);
  });
}

void cublasScopy(int n, const float *x, int incx, float *y, int incy) {
  call(
      [&](cublasHandle_t h) { return cublasScopy_v2(h, n, x, incx, y, incy); });
}

void cublasDcopy(int n, const double *x, int incx, double *y, int incy) {
  call(
      [&](cublasHandle_t h) { return cublasDcopy_v2(h, n, x, incx, y, incy); });
}

void cublasCcopy(int n, const cuComplex *x, int incx, cuComplex *y, int incy) {
  call(
      [&](cublasHandle_t h) { return cublasCcopy_v2(h, n, x, incx, y, incy); });
}

void cublasZcopy(int n, const cuDoubleComplex *x, int incx, cuDoubleComplex *y,
                 int incy) {
  call(
      [&](cublasHandle_t h) { return cublasZcopy_v2(h, n, x, incx, y, incy); });
}

void cublasSswap(int n, float *x, int incx, float *y, int incy) {
  call(
      [&](cublasHandle_t h) { return cublasSswap_v2(h, n, x, incx, y, incy); });
}

void cublasDswap(int n, double *x, int incx, double *y, int incy) {
  call(
      [&](cublasHandle_t h) { return cublasDswap_v2(h, n, x, incx, y, incy); });
}

void cublasCswap(int n, cuComplex *x, int incx, cuComplex *y, int incy) {
  call(
      [&](cublasHandle_t h) { return cublasCswap_v2(h, n, x, incx, y, incy); });
}

void cublasZswap(int n, cuDoubleComplex *x, int incx, cuDoubleComplex *y,
                 int incy) {
  call(
      [&](cublasHandle_t h) { return cublasZswap_v2(h, n, x, incx, y, incy); });
}

int cublasIsamax(int n, const float *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIsamax_v2(h, n, x, incx, r);
  });
}

int cublasIdamax(int n, const double *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIdamax_v2(h, n, x, incx, r);
  });
}

int cublasIcamax(int n, const cuComplex *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIcamax_v2(h, n, x, incx, r);
  });
}

int cublasIzamax(int n, const cuDoubleComplex *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIzamax_v2(h, n, x, incx, r);
  });
}

int cublasIsamin(int n, const float *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIsamin_v2(h, n, x, incx, r);
  });
}

int cublasIdamin(int n, const double *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIdamin_v2(h, n, x, incx, r);
  });
}

int cublasIcamin(int n, const cuComplex *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIcamin_v2(h, n, x, incx, r);
  });
}

int cublasIzamin(int n, const cuDoubleComplex *x, int incx) {
  return result<int>([&](cublasHandle_t h, int *r) {
    return cublasIzamin_v2(h, n, x, incx, r);
  });
}

float cublasSasum(int n, const float *x, int incx) {
  return result<float>([&](cublasHandle_t h, float *r) {
    return cublasSasum_v2(h, n, x, incx, r);
  });
}

double cublasDasum(int n, const double *x, int incx) {
  return result<double>([&](cublasHandle_t h, double *r) {
    return cublasDasum_v2(h, n, x, incx, r);
  });
}

float cublasScasum(int n, const cuComplex *x, int incx) {
  return result<float>([&](cublasHandle_t h, float *r) {
    return cublasScasum_v2(h, n, x, incx, r);
  });
}

double cublasDzasum(int n, const cuDoubleComplex *x, int incx) {
  return result<double>([&](cublasHandle_t h, double *r) {
    return cublasDzasum_v2(h, n, x, incx, r);
  });
}

void cublasSrot(int n, float *x, int incx, float *y, int incy, float sc,
                float ss) {
  call([&](cublasHandle_t h) {
    return cublasSrot_v2(h, n, x, incx, y, incy, &sc, &ss);
  });
}

void cublasDrot(int n, double *x, int incx, double *y, int incy, double sc,
                double ss) {
  call([&](cublasHandle_t h) {
    return cublasDrot_v2(h, n, x, incx, y, incy, &sc, &ss);
  });
}

void cublasCsrot(int n, cuComplex *x, int incx, cuComplex *y, int incy, float c,
                 float s) {
  call([&](cublasHandle_t h) {
    return cublasCsrot_v2(h, n, x, incx, y, incy, &c, &s);
  });
}

void cublasZdrot(int n, cuDoubleComplex *x, int incx, cuDoubleComplex *y,
                 int incy, double c, double s) {
  call([&](cublasHandle_t h) {
    return cublasZdrot_v2(h, n, x, incx, y, incy, &c, &s);
  });
}

} // extern "C"
