// One process, several host threads each launching kernels and copying on
// a stream of its own, as multi-threaded applications do (bench/
// host-threads.sh). For each count in THREADS... the threads start
// together and run SECONDS: each launches a one-thread kernel that counts
// its launches, and every PER_SYNC launches copies that count back and
// checks it. Prints one JSON line per count: launches per second of all
// threads, and whether every check held.
//   host_threads SECONDS PER_SYNC THREADS...
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
__global__ void countLaunch(unsigned long long *count) { ++*count; }

struct Result {
  long long launches = 0;
  bool checked = true;
};

void worker(double seconds, int perSync, std::atomic<int> *ready,
            std::atomic<bool> *go, Result *result) {
  cudaStream_t s;
  unsigned long long *count, *seen;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&count, sizeof *count));
  CHECK(cudaMallocHost(&seen, sizeof *seen));
  CHECK(cudaMemsetAsync(count, 0, sizeof *count, s));
  CHECK(cudaStreamSynchronize(s));
  ++*ready;
  while (!go->load())
    std::this_thread::yield();
  auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long long launches = 0;
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < perSync; ++i)
      countLaunch<<<1, 1, 0, s>>>(count);
    CHECK(cudaGetLastError());
    launches += perSync;
    CHECK(
        cudaMemcpyAsync(seen, count, sizeof *seen, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    if (*seen != (unsigned long long)launches)
      result->checked = false;
  }
  result->launches = launches;
  CHECK(cudaFreeHost(seen));
  CHECK(cudaFree(count));
  CHECK(cudaStreamDestroy(s));
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: host_threads SECONDS PER_SYNC THREADS...\n");
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const int perSync = std::atoi(argv[2]);
  CHECK(cudaFree(nullptr)); // the context before any clock starts
  bool allChecked = true;
  for (int a = 3; a < argc; ++a) {
    const int threads = std::atoi(argv[a]);
    std::vector<Result> results(threads);
    std::vector<std::thread> all;
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    for (int t = 0; t < threads; ++t)
      all.emplace_back(worker, seconds, perSync, &ready, &go, &results[t]);
    while (ready.load() < threads)
      std::this_thread::yield();
    auto start = std::chrono::steady_clock::now();
    go = true;
    for (std::thread &t : all)
      t.join();
    double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    long long launches = 0;
    bool checked = true;
    for (const Result &r : results) {
      launches += r.launches;
      checked = checked && r.checked;
    }
    allChecked = allChecked && checked;
    std::printf("{\"threads\": %d, \"launches\": %lld, \"seconds\": %.3f, "
                "\"launches_per_s\": %.1f, \"checked\": %s}\n",
                threads, launches, took, launches / took,
                checked ? "true" : "false");
    std::fflush(stdout);
  }
  return allChecked ? 0 : 1;
}
