// Allocates device memory and says whether it got it; the integration test
// runs several of these against a tenant's device quota (rc-server
// --quotas). With "hold" it keeps the memory until a signal ends it.
//   alloc_hold MIB [hold]
// Prints "allocated MIB MiB" and exits 0, or "refused: <error name>" and
// exits 1 (rc's own message, naming the quota, is on stderr).
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  const size_t mib = std::strtoul(argv[1], nullptr, 10);
  const bool hold = argc > 2 && std::strcmp(argv[2], "hold") == 0;
  void *d = nullptr;
  cudaError_t e = cudaMalloc(&d, mib << 20);
  if (e != cudaSuccess) {
    std::printf("refused: %s\n", cudaGetErrorName(e));
    return 1;
  }
  // The memory is the session's: touch it so a lazy backend holds it too.
  e = cudaMemset(d, 1, mib << 20);
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAIL: cudaMemset -> %s\n", cudaGetErrorName(e));
    return 1;
  }
  std::printf("allocated %zu MiB\n", mib);
  std::fflush(stdout);
  while (hold)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}
