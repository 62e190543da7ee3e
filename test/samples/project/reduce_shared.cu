// Block-wise sum in shared memory with __syncthreads, then the partial sums
// reduced on the host; integer data so the result is exact.
#include "check.h"
#include <vector>

constexpr int kBlock = 256;

__global__ void reduce_sum(const int *in, long long *partial, int n) {
  __shared__ long long buf[kBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      buf[threadIdx.x] += buf[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = buf[0];
}

int main() {
  const int n = 1000003; // not a multiple of the block size
  const int blocks = (n + kBlock - 1) / kBlock;
  std::vector<int> in(n);
  long long expect = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 37) % 1001 - 500;
    expect += in[i];
  }
  int *din;
  long long *dpartial;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dpartial, blocks * sizeof(long long)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  reduce_sum<<<blocks, kBlock>>>(din, dpartial, n);
  CHECK_LAUNCH();
  std::vector<long long> partial(blocks);
  CHECK(cudaMemcpy(partial.data(), dpartial, blocks * sizeof(long long),
                   cudaMemcpyDeviceToHost));
  long long got = 0;
  long bad = 0;
  for (int b = 0; b < blocks; ++b) {
    long long ref = 0;
    for (int i = b * kBlock; i < n && i < (b + 1) * kBlock; ++i)
      ref += in[i];
    bad += partial[b] != ref;
    got += partial[b];
  }
  bad += got != expect;
  CHECK(cudaFree(din));
  CHECK(cudaFree(dpartial));
  return finish("reduce_shared", bad);
}
