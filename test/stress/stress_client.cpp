// A remote-clang application for the stress scripts (kill-cycles.sh,
// hammer-latency.sh), linked to the runtime like any other:
//   stress_client loop SEED        copies of random sizes forever (pinned
//                                  and pageable, both directions, around
//                                  the RMA and ring sizes), every byte
//                                  checked; says "streaming" when the
//                                  copies begin: killed from then on
//   stress_client flood COUNT KIB  COUNT uploads of KIB each without a
//                                  sync, then one sync
//   stress_client probe            one cudaMalloc: prints how long the
//                                  connect, Hello and first call took
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

bool ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess)
    return true;
  std::fprintf(stderr, "stress_client: %s: %s\n", what, cudaGetErrorName(e));
  return false;
}

int loop(unsigned seed) {
  std::mt19937 rng(seed);
  const size_t kDevice = 16 << 20, kPinned = 4 << 20;
  void *d = nullptr, *pinned = nullptr;
  cudaStream_t s;
  if (!ok(cudaMalloc(&d, kDevice), "cudaMalloc") ||
      !ok(cudaMallocHost(&pinned, kPinned), "cudaMallocHost") ||
      !ok(cudaStreamCreate(&s), "cudaStreamCreate"))
    return 1;
  const size_t sizes[] = {1000, 65535, 65536, 70000, 1 << 20, kPinned};
  std::vector<uint8_t> pageable(9 << 20), back(9 << 20);
  std::printf("streaming\n"); // the scripts kill it from here on
  std::fflush(stdout);
  for (unsigned it = 0;; ++it) {
    bool usePinned = rng() % 2;
    size_t n = sizes[rng() % (sizeof sizes / sizeof *sizes)] - rng() % 512;
    if (!usePinned && rng() % 4 == 0)
      n = (9 << 20) - rng() % 4096; // past the upload ring's pieces
    uint8_t *host =
        usePinned ? static_cast<uint8_t *>(pinned) : pageable.data();
    size_t off = rng() % (kDevice - n);
    for (size_t i = 0; i < n; i += 4096)
      host[i] = uint8_t(it + i);
    auto *dst = static_cast<uint8_t *>(d) + off;
    if (!ok(cudaMemcpyAsync(dst, host, n, cudaMemcpyHostToDevice, s), "H2D") ||
        !ok(cudaMemcpyAsync(back.data(), dst, n, cudaMemcpyDeviceToHost, s),
            "D2H") ||
        !ok(cudaStreamSynchronize(s), "sync"))
      return 1;
    for (size_t i = 0; i < n; i += 4096)
      if (back[i] != host[i]) {
        std::fprintf(stderr, "stress_client: iteration %u: byte %zu differs\n",
                     it, i);
        return 1;
      }
  }
}

int flood(long count, long kib) {
  void *d = nullptr;
  size_t n = size_t(kib) << 10;
  std::vector<uint8_t> h(n, 0x5a);
  cudaStream_t s;
  if (!ok(cudaMalloc(&d, n), "cudaMalloc") ||
      !ok(cudaStreamCreate(&s), "cudaStreamCreate"))
    return 1;
  auto start = Clock::now();
  for (long i = 0; i < count; ++i)
    if (!ok(cudaMemcpyAsync(d, h.data(), n, cudaMemcpyHostToDevice, s), "H2D"))
      return 1;
  if (!ok(cudaStreamSynchronize(s), "sync"))
    return 1;
  std::printf("flood: %ld uploads of %ld KiB in %.2f s\n", count, kib,
              std::chrono::duration<double>(Clock::now() - start).count());
  return 0;
}

int probe() {
  auto start = Clock::now();
  void *d = nullptr;
  if (!ok(cudaMalloc(&d, 256), "cudaMalloc"))
    return 1;
  std::printf(
      "probe: %.1f ms\n",
      std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  return ok(cudaFree(d), "cudaFree") ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "loop")
    return loop(argc > 2 ? unsigned(std::atoi(argv[2])) : 1);
  if (mode == "flood" && argc > 3)
    return flood(std::atol(argv[2]), std::atol(argv[3]));
  if (mode == "probe")
    return probe();
  std::fprintf(stderr, "usage: stress_client loop SEED | flood COUNT KIB | "
                       "probe\n");
  return 2;
}
