// The CUDA guide's extended lambdas (--extended-lambda): __device__ and
// __host__ __device__ lambdas passed to kernel templates, capturing by
// value.
#include <cstdio>

template <typename F> __global__ void apply(F f, int *out) {
  out[threadIdx.x] = f(threadIdx.x);
}
template <typename F> __global__ void each(F f) { f(threadIdx.x); }

int main() {
  int *out;
  cudaMalloc(&out, 256);
  int scale = 3;
  apply<<<1, 32>>>([=] __device__(int i) { return i * scale; }, out);
  apply<<<1, 32>>>([=] __host__ __device__(int i) { return i + scale; }, out);
  auto twice = [] __host__ __device__(int x) { return x * 2; };
  printf("%d\n", twice(2));
  each<<<1, 32>>>([=] __device__(int i) { out[i] = scale; });
  return cudaDeviceSynchronize() != cudaSuccess;
}
