// The CUDA C++ Programming Guide's kernel launches and kernel attributes:
// <<<>>> with shared memory and a stream, template kernels,
// cudaLaunchKernel, cudaLaunchKernelEx with launch attributes,
// __launch_bounds__ with one to three arguments, __restrict__.
#include <cuda_runtime.h>

__global__ void vecAdd(float *__restrict__ c, const float *__restrict__ a,
                       const float *__restrict__ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
template <typename T, int N> __global__ void scale(T *data, T factor) {
  data[threadIdx.x % N] *= factor;
}
__global__ void __launch_bounds__(256) bounded1(int *p) { p[threadIdx.x] = 1; }
__global__ void __launch_bounds__(256, 2) bounded2(int *p) { p[threadIdx.x] = 2; }
__global__ void __launch_bounds__(128, 2, 4) bounded3(int *p) {
  p[threadIdx.x] = 3;
}
__global__ void clusterKernel(float *input, float *output) {
  output[blockIdx.x] = input[blockIdx.x];
}

void launch(float *a, float *b, float *c, int *p, int n, cudaStream_t s) {
  vecAdd<<<(n + 255) / 256, 256>>>(c, a, b, n);
  vecAdd<<<dim3(4), dim3(64), 0, s>>>(c, a, b, n);
  scale<float, 32><<<1, 32>>>(a, 2.0f);
  scale<int, 8><<<1, 32, 128, s>>>(p, 3);
  void *args[] = {&c, &a, &b, &n};
  cudaLaunchKernel((const void *)vecAdd, dim3(4), dim3(64), args, 0, s);
  bounded1<<<1, 256>>>(p);
  bounded2<<<1, 256>>>(p);
  bounded3<<<2, 128>>>(p);

  // The guide's cluster launch: the cluster dimension as a launch attribute.
  cudaLaunchConfig_t config = {0};
  config.gridDim = dim3(8);
  config.blockDim = dim3(128);
  config.stream = s;
  cudaLaunchAttribute attribute[2];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = 2;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  attribute[1].id = cudaLaunchAttributePriority;
  attribute[1].val.priority = 0;
  config.attrs = attribute;
  config.numAttrs = 2;
  cudaLaunchKernelEx(&config, clusterKernel, a, b);
  cudaLaunchKernelEx(&config, vecAdd, c, (const float *)a, (const float *)b, n);
}
