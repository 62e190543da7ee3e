// Relocatable device code (CMake's CUDA_SEPARABLE_COMPILATION): a kernel
// calling __device__ functions of another translation unit and of a static
// library, and reading and writing their __device__ variables from the host
// (cudaMemcpyToSymbol / FromSymbol through `extern` declarations). Also a
// static __device__ variable the host names, which clang renames for the
// device link (docs/compatibility.md), and a kernel in an anonymous
// namespace.
#include "../check.h"
#include "separable.h"
#include <vector>

static __device__ unsigned int launches;

namespace {
__global__ void apply(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    atomicAdd(&launches, 1u);
  if (i < n)
    v[i] = twiceScaled(v[i]);
}
} // namespace

int main() {
  const int n = 1000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 17) - 8.0f;
  float *d;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  float factor = 1.5f; // replaces the library's 3.0 before any launch
  CHECK(cudaMemcpyToSymbol(scaleFactor, &factor, sizeof factor));
  apply<<<(n + 127) / 128, 128>>>(d, n);
  CHECK_LAUNCH();
  apply<<<(n + 127) / 128, 128>>>(d, n);
  CHECK_LAUNCH();
  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  unsigned int calls = 0, kernels = 0;
  CHECK(cudaMemcpyFromSymbol(&calls, helperCalls, sizeof calls));
  CHECK(cudaMemcpyFromSymbol(&kernels, launches, sizeof kernels));
  long bad = 0;
  for (int i = 0; i < n; ++i)
    bad += out[i] != 9.0f * h[i]; // times 2 * 1.5, twice: exact
  bad += calls != 2u * n;
  bad += kernels != 2u;
  CHECK(cudaFree(d));
  return finish("separable", bad);
}
