// A multi-threaded application's pattern: THREADS host threads at once,
// each with its own stream, device buffer and events, copying up and down
// in sizes on both sides of the RMA and upload-ring thresholds, recording
// and waiting on events, some of its copies overlapping the others'
// round trips. Every byte read back is checked against what that thread
// wrote, so calls of one thread taking effect on another's stream or
// buffer, or a lost or reordered command, fail the run.
//   thread_streams THREADS ITERATIONS
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {
std::atomic<int> failures{0};

// Not checks.h's CUDA_OK: its counter is not for several threads.
bool ok(cudaError_t e, const char *what, int thread, int iteration) {
  if (e == cudaSuccess)
    return true;
  std::fprintf(stderr, "FAIL thread %d iteration %d: %s -> %s\n", thread,
               iteration, what, cudaGetErrorName(e));
  ++failures;
  return false;
}

uint8_t pattern(int thread, int iteration, size_t i) {
  return uint8_t(thread * 37 + iteration * 11 + i * 7 + (i >> 12));
}

void worker(int thread, int iterations) {
  const size_t sizes[] = {4096, 65536, 300000, (1 << 20) + 17};
  const size_t kDeviceBytes = 2 << 20;
  void *d = nullptr;
  cudaStream_t s = nullptr;
  cudaEvent_t uploaded = nullptr;
  if (!ok(cudaMalloc(&d, kDeviceBytes), "cudaMalloc", thread, -1) ||
      !ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
          "cudaStreamCreate", thread, -1) ||
      !ok(cudaEventCreate(&uploaded), "cudaEventCreate", thread, -1))
    return;
  std::vector<uint8_t> in(kDeviceBytes), out(kDeviceBytes);
  for (int it = 0; it < iterations; ++it) {
    size_t n = sizes[(thread + it) % (sizeof sizes / sizeof *sizes)];
    for (size_t i = 0; i < n; ++i)
      in[i] = pattern(thread, it, i);
    if (!ok(cudaMemcpyAsync(d, in.data(), n, cudaMemcpyHostToDevice, s),
            "cudaMemcpyAsync H2D", thread, it) ||
        !ok(cudaEventRecord(uploaded, s), "cudaEventRecord", thread, it))
      break;
    // The upload has its bytes once the call returned (pageable memory):
    // changing them now must not reach the device.
    std::memset(in.data(), 0, n);
    if (!ok(cudaEventSynchronize(uploaded), "cudaEventSynchronize", thread,
            it) ||
        !ok(cudaMemcpyAsync(out.data(), d, n, cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync D2H", thread, it) ||
        !ok(cudaStreamSynchronize(s), "cudaStreamSynchronize", thread, it))
      break;
    for (size_t i = 0; i < n; ++i) {
      if (out[i] != pattern(thread, it, i)) {
        std::fprintf(stderr,
                     "FAIL thread %d iteration %d: byte %zu of %zu is %u, "
                     "not %u\n",
                     thread, it, i, n, out[i], pattern(thread, it, i));
        ++failures;
        return;
      }
    }
  }
  ok(cudaEventDestroy(uploaded), "cudaEventDestroy", thread, -1);
  ok(cudaStreamDestroy(s), "cudaStreamDestroy", thread, -1);
  ok(cudaFree(d), "cudaFree", thread, -1);
}
} // namespace

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  if (threads < 1 || iterations < 1) {
    std::fprintf(stderr, "usage: thread_streams THREADS ITERATIONS\n");
    return 2;
  }
  std::vector<std::thread> all;
  for (int t = 0; t < threads; ++t)
    all.emplace_back(worker, t, iterations);
  for (std::thread &t : all)
    t.join();
  if (failures) {
    std::printf("FAILED: %d\n", failures.load());
    return 1;
  }
  std::printf("PASS: %d threads x %d iterations\n", threads, iterations);
  return 0;
}
