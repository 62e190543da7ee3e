// How long a new CUDA program waits before its first kernel has run: the
// first runtime call (remotely: connect, Hello, and with rc-server
// --isolation process the redirect to a worker and a second Hello), then
// the first allocation, launch and synchronization (locally: the primary
// context's creation; remotely the session's context, made at Hello).
//   session_start            prints "first_call_ms X first_kernel_ms Y"
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void mark(int *p) { *p = 1; }

int main() {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  auto t0 = Clock::now();
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  auto t1 = Clock::now();
  int *d = nullptr;
  CHECK(cudaMalloc(&d, sizeof(int)));
  mark<<<1, 1>>>(d);
  int h = 0;
  CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  auto t2 = Clock::now();
  if (h != 1) {
    std::fprintf(stderr, "the kernel did not run\n");
    return 1;
  }
  std::printf("first_call_ms %.3f first_kernel_ms %.3f\n", ms(t0, t1),
              ms(t0, t2));
  return 0;
}
