// Many copies of random sizes around the RMA thresholds (64 KiB) and beyond
// the upload ring's pieces (4 MiB), into host buffers that are freshly
// allocated each time (as test-backend-ops does), every byte checked. Run
// several at once against one rc-server: clients share the server's process
// but must never see or disturb each other's bytes.
//   copy_stress ITERATIONS SEED
#include "checks.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 50;
  unsigned seed = argc > 2 ? unsigned(std::atoi(argv[2])) : 1;
  std::mt19937 rng(seed);
  const size_t kDeviceBytes = 12 << 20;
  void *d = nullptr;
  CUDA_OK(cudaMalloc(&d, kDeviceBytes));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  const size_t sizes[] = {1000,    65535,         65536,         70000,
                          1 << 20, (4 << 20) - 1, (4 << 20) + 1, 9 << 20};
  for (int it = 0; it < iterations && !failures; ++it) {
    size_t n = sizes[rng() % (sizeof sizes / sizeof *sizes)] - rng() % 512;
    size_t off = rng() % (kDeviceBytes - n);
    auto in = std::make_unique<uint8_t[]>(n);
    for (size_t i = 0; i < n; ++i)
      in[i] = uint8_t(seed * 31 + it * 7 + i * 13 + (i >> 16));
    auto *dst = static_cast<uint8_t *>(d) + off;
    CUDA_OK(cudaMemcpyAsync(dst, in.get(), n, cudaMemcpyHostToDevice, s));
    in[0] ^= 0xff; // the upload must have taken its bytes already
    in[n - 1] ^= 0xff;
    CUDA_OK(cudaStreamSynchronize(s));
    auto out = std::make_unique<uint8_t[]>(n);
    CUDA_OK(cudaMemcpyAsync(out.get(), dst, n, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    in[0] ^= 0xff;
    in[n - 1] ^= 0xff;
    if (std::memcmp(in.get(), out.get(), n) != 0) {
      std::fprintf(stderr, "FAIL iteration %d: %zu bytes at %zu differ\n", it,
                   n, off);
      ++failures;
    }
  }
  CUDA_OK(cudaStreamDestroy(s));
  CUDA_OK(cudaFree(d));
  std::printf("%s: %d iterations, %d failures\n", failures ? "FAIL" : "PASS",
              iterations, failures);
  return failures ? 1 : 0;
}
