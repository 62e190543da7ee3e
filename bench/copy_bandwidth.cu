// Bandwidth of plain copies through remote-clang: host to device and back,
// from pageable and from pinned (cudaMallocHost) memory, median of REPS
// copies of MIB MiB each. For comparing transports and their settings
// (docs/transport.md), e.g. against rc-server --test-device:
//   remote-clang++ -O2 bench/copy_bandwidth.cu -o copy_bandwidth
//   rc-server --test-device --listen shm://bw --manifest copy_bandwidth.rcm &
//   RC_SERVER=shm://bw ./copy_bandwidth [MIB] [REPS]
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// remote-clang writes a manifest only for a program with a kernel.
__global__ void touch(char *p) { p[threadIdx.x] = 0; }

static double medianGBs(size_t bytes, int reps, void *dst, const void *src,
                        cudaMemcpyKind kind) {
  std::vector<double> secs;
  CHECK(cudaMemcpy(dst, src, bytes, kind)); // warm-up
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    CHECK(cudaMemcpy(dst, src, bytes, kind));
    secs.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  std::sort(secs.begin(), secs.end());
  return double(bytes) / secs[secs.size() / 2] / 1e9;
}

int main(int argc, char **argv) {
  size_t bytes = size_t(argc > 1 ? std::atoi(argv[1]) : 32) << 20;
  int reps = argc > 2 ? std::atoi(argv[2]) : 21;
  void *dev = nullptr, *pinned = nullptr;
  CHECK(cudaMalloc(&dev, bytes));
  CHECK(cudaMallocHost(&pinned, bytes));
  std::vector<char> pageable(bytes, 1);
  std::memset(pinned, 1, bytes);
  std::printf("%zu MiB, median of %d\n", bytes >> 20, reps);
  std::printf(
      "H2D pageable %6.2f GB/s\n",
      medianGBs(bytes, reps, dev, pageable.data(), cudaMemcpyHostToDevice));
  std::printf(
      "D2H pageable %6.2f GB/s\n",
      medianGBs(bytes, reps, pageable.data(), dev, cudaMemcpyDeviceToHost));
  std::printf("H2D pinned   %6.2f GB/s\n",
              medianGBs(bytes, reps, dev, pinned, cudaMemcpyHostToDevice));
  std::printf("D2H pinned   %6.2f GB/s\n",
              medianGBs(bytes, reps, pinned, dev, cudaMemcpyDeviceToHost));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(dev));
  return 0;
}
