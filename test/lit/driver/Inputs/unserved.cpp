// Calls remote-clang serves (cudaMalloc, cudaDeviceSetLimit) and ones it
// does not yet (runtime, driver, NPP).
#include <cuda.h>
#include <cuda_runtime.h>
#include <npp.h>
int main() {
  void *p = nullptr;
  cudaMalloc(&p, 16);
  cudaDeviceSetLimit(cudaLimitStackSize, 4096);
  cudaFreeMipmappedArray(nullptr);
  CUmodule module = nullptr;
  CUdeviceptr global;
  size_t size;
  cuModuleGetGlobal(&global, &size, module, "table");
  nppSetStream(nullptr);
  return 0;
}
