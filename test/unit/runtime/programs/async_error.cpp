// An asynchronous failure on the server: the call itself succeeds (it is
// only batched), the next synchronization returns the error and stderr names
// the failing call; the error is reported once.
#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
    return 2;
  void *bogus = reinterpret_cast<void *>(0x10); // never allocated
  cudaError_t atCall = cudaMemsetAsync(bogus, 0, 16, nullptr);
  cudaError_t atSync = cudaDeviceSynchronize();
  cudaError_t after = cudaDeviceSynchronize();
  std::printf("at call: %s\nat sync: %s\nafter: %s\n", cudaGetErrorName(atCall),
              cudaGetErrorName(atSync), cudaGetErrorName(after));
  return atCall == cudaSuccess && atSync != cudaSuccess && after == cudaSuccess
             ? 0
             : 1;
}
