// Streams copies and launches until a signal ends it; the integration test
// sends SIGINT or SIGTERM mid-stream and times how long the process takes
// to go. With "exit-handler" it first installs a handler that calls exit(),
// as many applications do: the runtime's exit path then runs while the
// interrupted thread may hold the runtime lock. Rounds are paced (10 ms
// apart) so that 20 clients and their sessions leave a 2-core machine's
// CPU to the server's listener.
//   stream_until_signal [exit-handler]
#include "checks.h"
#include "test_module.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

extern "C" cudaError_t __rc_launch_kernel(uint64_t id, dim3 grid, dim3 block,
                                          void **args, size_t shmem,
                                          cudaStream_t s);

namespace {
constexpr int kExitHandlerStatus = 3;
void exitOnSignal(int) { std::exit(kExitHandlerStatus); }
} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "exit-handler") == 0) {
    std::signal(SIGINT, exitOnSignal);
    std::signal(SIGTERM, exitOnSignal);
  }
  // Above the RMA thresholds (64 KiB): uploads through the ring, read-backs
  // written by RMA, the paths that hold the runtime lock longest.
  const size_t n = 256 << 10;
  std::vector<float> host(n / sizeof(float), 1.0f), back(host.size());
  float *d = nullptr;
  CUDA_OK(cudaMalloc((void **)&d, n));
  int count = int(host.size());
  float factor = 2.0f;
  void *args[] = {&d, &count, &factor};
  for (long it = 0; failures == 0; ++it) {
    CUDA_OK(cudaMemcpy(d, host.data(), n, cudaMemcpyHostToDevice));
    CUDA_OK(__rc_launch_kernel(rc::test::kTestKernelId, dim3(count / 256),
                               dim3(256), args, 0, nullptr));
    CUDA_OK(cudaMemcpy(back.data(), d, n, cudaMemcpyDeviceToHost));
    if (it == 0) {
      std::printf("streaming\n");
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 1; // only a failed call ends the loop
}
