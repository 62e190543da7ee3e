// The occupancy API as cuda-samples' simpleOccupancy uses it, held to
// CUDA's own occupancy calculator (cuda_occupancy.h) fed with what the
// device and each kernel report: cudaOccupancyMaxActiveBlocksPerMultiprocessor
// for every block size and some dynamic shared memory sizes, and
// cudaOccupancyMaxPotentialBlockSize (cuda_runtime.h's template, which calls
// cudaFuncGetAttributes, cudaDeviceGetAttribute and the former); then a
// launch with the suggested configuration computes the right squares.
// `--test-device`: the host test device runs no kernels, so only the
// answers are checked.
#include "check.h"
#include <cstring>
#include <cuda_occupancy.h>
#include <vector>

__global__ void square(int *array, int n) {
  extern __shared__ int unused[];
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n)
    array[i] *= array[i];
}

// Static shared memory, so its limit takes part.
__global__ void staged(float *out, int n) {
  __shared__ float tile[2048];
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  tile[threadIdx.x % 2048] = float(i);
  __syncthreads();
  if (i < n)
    out[i] = tile[(threadIdx.x + 1) % 2048];
}

// What CUDA's calculator says for `func` on this device, from the
// attributes the runtime reports.
long compare(const char *name, const void *func, const cudaDeviceProp &prop) {
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, func));
  std::printf("%s: %d registers, %d threads, %zu static, %d dynamic max, "
              "carveout %d\n",
              name, attr.numRegs, attr.maxThreadsPerBlock, attr.sharedSizeBytes,
              attr.maxDynamicSharedSizeBytes, attr.preferredShmemCarveout);
  cudaOccDeviceProp occProp(prop);
  cudaOccFuncAttributes occAttr(attr);
  cudaOccDeviceState state;
  state.carveoutConfig = attr.preferredShmemCarveout;
  long bad = 0;
  for (int bs = 1; bs <= attr.maxThreadsPerBlock; bs += bs < 64 ? 1 : 32)
    for (size_t dyn : {size_t(0), size_t(1024), size_t(12288), size_t(40000)}) {
      if (dyn > size_t(attr.maxDynamicSharedSizeBytes))
        continue;
      int blocks = -1;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, bs,
                                                          dyn));
      cudaOccResult r;
      int want = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &occProp, &occAttr,
                                                         &state, bs, dyn) ==
                         CUDA_OCC_SUCCESS
                     ? r.activeBlocksPerMultiprocessor
                     : -1;
      if (blocks != want && ++bad <= 5)
        std::fprintf(stderr,
                     "FAIL %s: block %d, %zu dynamic: %d blocks per SM, "
                     "CUDA's calculator %d\n",
                     name, bs, dyn, blocks, want);
    }
  int minGrid = 0, block = 0, wantGrid = 0, wantBlock = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, func, 0, 0));
  if (cudaOccMaxPotentialOccupancyBlockSize(&wantGrid, &wantBlock, &occProp,
                                            &occAttr, &state,
                                            0) != CUDA_OCC_SUCCESS ||
      minGrid != wantGrid || block != wantBlock) {
    std::fprintf(stderr,
                 "FAIL %s: suggested block %d, grid %d; CUDA's calculator "
                 "%d, %d\n",
                 name, block, minGrid, wantBlock, wantGrid);
    ++bad;
  }
  std::printf("%s: suggested block %d, minimum grid %d\n", name, block,
              minGrid);
  return bad;
}

int main(int argc, char **argv) {
  const bool testDevice = argc > 1 && !std::strcmp(argv[1], "--test-device");
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  long bad = compare("square", (const void *)square, prop);
  bad += compare("staged", (const void *)staged, prop);

  // As simpleOccupancy: the suggested configuration, then the squares.
  const int n = 1000000;
  int minGrid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, square, 0, n));
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = i % 46340; // squares stay within int
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(d, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  square<<<(n + block - 1) / block, block>>>(d, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(host.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (!testDevice)
    for (int i = 0; i < n; ++i)
      bad += host[i] != (i % 46340) * (i % 46340);
  CHECK(cudaFree(d));
  return finish("occupancy", bad);
}
