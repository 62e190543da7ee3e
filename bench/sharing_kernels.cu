// One client of bench/gpu-sharing.sh: many short kernels that each fill a
// small part of the GPU, a synchronization after every few, as an
// inference decode loop does. Alone it leaves most SMs idle; several at
// once fill them only where their kernels run side by side (MPS), not
// where the GPU time-slices between their contexts.
//   sharing_kernels START_NS SECONDS [BLOCKS] [PER_SYNC] [ITERS]
// waits (context made, one kernel run) until CLOCK_MONOTONIC reaches
// START_NS, so that every client starts at once, then launches kernels of
// BLOCKS blocks of 128 threads (default 4), each ITERS dependent FMAs a
// thread (default 20000, some tens of microseconds), PER_SYNC (default 4)
// between synchronizations, for SECONDS. Prints one JSON line: kernels
// run, the seconds it ran, how late it was for START_NS (ms). Every
// result is checked against the host's.
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace {
constexpr int kThreads = 128;

__global__ void chain(float *out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = float(i % 7) * 0.25f;
  for (int k = 0; k < iters; ++k)
    x = fmaf(x, 0.999f, 0.001f);
  out[i] = x;
}

float hostChain(int i, int iters) {
  float x = float(i % 7) * 0.25f;
  for (int k = 0; k < iters; ++k)
    x = std::fma(x, 0.999f, 0.001f);
  return x;
}

long long monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: sharing_kernels START_NS SECONDS [BLOCKS] "
                         "[PER_SYNC] [ITERS]\n");
    return 2;
  }
  const long long start = std::atoll(argv[1]);
  const double seconds = std::atof(argv[2]);
  const int blocks = argc > 3 ? std::atoi(argv[3]) : 4;
  const int perSync = argc > 4 ? std::atoi(argv[4]) : 4;
  const int iters = argc > 5 ? std::atoi(argv[5]) : 20000;
  const int n = blocks * kThreads;
  float *out = nullptr;
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  chain<<<blocks, kThreads>>>(out, iters);
  CHECK(cudaDeviceSynchronize());
  const long long late = monotonicNs() - start;
  while (monotonicNs() < start) {
    timespec nap{0, 200000};
    nanosleep(&nap, nullptr);
  }
  const long long begin = monotonicNs();
  const long long end = begin + (long long)(seconds * 1e9);
  long long kernels = 0;
  while (monotonicNs() < end) {
    for (int k = 0; k < perSync; ++k)
      chain<<<blocks, kThreads>>>(out, iters);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(0));
    kernels += perSync;
  }
  const double ran = double(monotonicNs() - begin) / 1e9;
  std::vector<float> host(n);
  CHECK(
      cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (host[i] != hostChain(i, iters)) {
      std::fprintf(stderr, "wrong result at %d: %g, not %g\n", i, host[i],
                   hostChain(i, iters));
      return 1;
    }
  std::printf("{\"kernels\": %lld, \"seconds\": %.3f, \"late_ms\": %.1f}\n",
              kernels, ran, late > 0 ? double(late) / 1e6 : 0.0);
  return 0;
}
