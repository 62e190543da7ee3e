// Two streams, each: async H2D from pinned memory, kernel, async D2H; an
// event orders stream 1 after stream 0's kernel; elapsed time is measured.
// The work is bracketed by cudaProfilerStart/Stop, as NVIDIA's samples do
// (rc-server passes them to a profiler attached to it).
#include "check.h"
#include <cstring>
#include <cuda_profiler_api.h>

__global__ void square_plus(float *data, int n, float add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = data[i] * data[i] + add;
}

__global__ void add_from(float *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] += src[i];
}

int main() {
  const int n = 1 << 18;
  const size_t bytes = n * sizeof(float);
  CHECK(cudaProfilerStart());
  float *h0, *h1, *d0, *d1;
  CHECK(cudaMallocHost(&h0, bytes));
  CHECK(cudaMallocHost(&h1, bytes));
  CHECK(cudaMalloc(&d0, bytes));
  CHECK(cudaMalloc(&d1, bytes));
  for (int i = 0; i < n; ++i) {
    h0[i] = float(i % 100);
    h1[i] = float(i % 7);
  }
  cudaStream_t s0, s1;
  cudaEvent_t start, stop, k0done;
  CHECK(cudaStreamCreate(&s0));
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&k0done, cudaEventDisableTiming));

  const int blocks = (n + 255) / 256;
  CHECK(cudaEventRecord(start, s0));
  CHECK(cudaMemcpyAsync(d0, h0, bytes, cudaMemcpyHostToDevice, s0));
  CHECK(cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1));
  square_plus<<<blocks, 256, 0, s0>>>(d0, n, 1.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(k0done, s0));
  square_plus<<<blocks, 256, 0, s1>>>(d1, n, 2.0f);
  CHECK(cudaGetLastError());
  // d1 += d0 needs stream 0's kernel: cross-stream dependency.
  CHECK(cudaStreamWaitEvent(s1, k0done, 0));
  add_from<<<blocks, 256, 0, s1>>>(d1, d0, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h0, d0, bytes, cudaMemcpyDeviceToHost, s0));
  CHECK(cudaMemcpyAsync(h1, d1, bytes, cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaEventRecord(stop, s0));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaStreamSynchronize(s0));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  long bad = 0;
  for (int i = 0; i < n; ++i) {
    float a = float(i % 100), b = float(i % 7);
    float r0 = a * a + 1.0f, r1 = b * b + 2.0f + r0;
    bad += h0[i] != r0;
    bad += h1[i] != r1;
  }
  if (!(ms >= 0.0f)) {
    std::fprintf(stderr, "bad elapsed time %f ms\n", ms);
    ++bad;
  }
  std::printf("streams_events: %.3f ms\n", ms);
  CHECK(cudaStreamDestroy(s0));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaEventDestroy(k0done));
  CHECK(cudaFreeHost(h0));
  CHECK(cudaFreeHost(h1));
  CHECK(cudaFree(d0));
  CHECK(cudaFree(d1));
  CHECK(cudaProfilerStop());
  return finish("streams_events", bad);
}
