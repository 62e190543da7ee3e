// Linked to NVIDIA's own CUDA runtime (libcudart.so.13), as an nvcc-built
// CUDA 13 program or a framework's wheel is, with remote-clang's folder on
// the library path: the driver API it loads (libcuda.so.1) is remote-
// clang's and must reach rc-server through remote-clang's runtime, not
// through NVIDIA's, which needs NVIDIA's driver and must fail, told why.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <dlfcn.h>

int main() {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  auto init =
      driver ? reinterpret_cast<CUresult (*)(unsigned)>(dlsym(driver, "cuInit"))
             : nullptr;
  auto count = driver ? reinterpret_cast<CUresult (*)(int *)>(
                            dlsym(driver, "cuDeviceGetCount"))
                      : nullptr;
  int n = -1;
  if (!init || !count || init(0) != CUDA_SUCCESS || count(&n) != CUDA_SUCCESS) {
    std::printf("driver API: failed\n");
    return 1;
  }
  std::printf("driver API: %d device(s)\n", n);
  int runtimeCount = -1;
  cudaError_t e = cudaGetDeviceCount(&runtimeCount);
  std::printf("NVIDIA's runtime: %s\n", cudaGetErrorName(e));
  return 0;
}
