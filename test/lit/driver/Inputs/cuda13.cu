// Written against CUDA 13: its cuCtxCreate, cudaMemPrefetchAsync and
// cudaDeviceProp.
#include <cuda.h>
#include <cstdio>
#include <cstring>

static_assert(CUDA_VERSION >= 13000, "CUDA 13's headers");

__global__ void fill(int *a) { a[threadIdx.x] = threadIdx.x; }

int main() {
  CUdevice dev;
  CUcontext ctx;
  CUctxCreateParams params;
  std::memset(&params, 0, sizeof params);
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&ctx, &params, 0, dev))
    return 1;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0))
    return 2;
  int *d = nullptr;
  if (cudaMalloc(&d, 64))
    return 3;
  fill<<<1, 16>>>(d);
  int *m = nullptr;
  if (cudaMallocManaged(&m, 64))
    return 5;
  cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
  // CUDA 13's ABI (a location, flags): the runtime's answer for a device
  // without concurrent managed access, whatever the location says.
  cudaError_t prefetch = cudaMemPrefetchAsync(m, 64, loc, 0, 0);
  // Fields after those CUDA 13 removed (clockRate, computeMode, ...).
  std::printf("name %s, sm_%d%d, warp %d, max threads %d, %d SMs, prefetch %s\n",
              prop.name, prop.major, prop.minor, prop.warpSize,
              prop.maxThreadsPerBlock, prop.multiProcessorCount,
              cudaGetErrorName(prefetch));
  return cudaDeviceSynchronize() ? 4 : 0;
}
