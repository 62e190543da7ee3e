// An asynchronous failure on the server: the call itself succeeds (it is
// only batched), the next synchronization returns the error and stderr names
// the failing call; the error is reported once. A kernel's pointer argument
// is what only the server checks (the runtime checks copy and memset ranges
// at the call).
#include "test_module.h"

#include <cuda_runtime_api.h>

#include <cstdio>

extern "C" cudaError_t __rc_launch_kernel(uint64_t id, dim3 grid, dim3 block,
                                          void **args, size_t shmem,
                                          cudaStream_t s);

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
    return 2;
  float *bogus = reinterpret_cast<float *>(0x10); // never allocated
  int n = 16;
  float factor = 2.0f;
  void *args[] = {&bogus, &n, &factor};
  cudaError_t atCall = __rc_launch_kernel(rc::test::kTestKernelId, dim3(1),
                                          dim3(16), args, 0, nullptr);
  cudaError_t atSync = cudaDeviceSynchronize();
  cudaError_t after = cudaDeviceSynchronize();
  std::printf("at call: %s\nat sync: %s\nafter: %s\n", cudaGetErrorName(atCall),
              cudaGetErrorName(atSync), cudaGetErrorName(after));
  return atCall == cudaSuccess && atSync != cudaSuccess && after == cudaSuccess
             ? 0
             : 1;
}
