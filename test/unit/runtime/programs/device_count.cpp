// Prints what cudaGetDeviceCount says; used to check the no-server path
// (must fail fast with cudaErrorNoDevice and one clear message).
#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  int count = -1;
  cudaError_t e = cudaGetDeviceCount(&count);
  std::printf("cudaGetDeviceCount: %s count=%d\n", cudaGetErrorName(e), count);
  void *p = nullptr;
  e = cudaMalloc(&p, 16);
  std::printf("cudaMalloc: %s\n", cudaGetErrorName(e));
  return 0;
}
