// cuBLAS's legacy API: no handle, errors read with cublasGetError.
#include <cublas.h>

int main() {
  if (cublasInit() != CUBLAS_STATUS_SUCCESS)
    return 1;
  float *x = nullptr;
  cublasAlloc(16, sizeof(float), (void **)&x);
  cublasSgemm('N', 'N', 4, 4, 4, 1.0f, x, 4, x, 4, 0.0f, x, 4);
  float norm = cublasSnrm2(16, x, 1);
  cublasSgbmv('N', 4, 4, 1, 1, 1.0f, x, 3, x, 1, 0.0f, x, 1);
  cublasFree(x);
  return cublasGetError() != CUBLAS_STATUS_SUCCESS || norm < 0 ||
         cublasShutdown() != CUBLAS_STATUS_SUCCESS;
}
