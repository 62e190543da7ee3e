// What a multipath host-to-device copy could gain on this machine (issue
// 26, MMA's idea), measured with plain CUDA before rc-server does it: one
// pinned 1 GiB copy to GPU 0 over its own PCIe link, against the same
// bytes split between that link and a relay through GPU 1 (host to GPU 1
// over GPU 1's link, then GPU 1 to GPU 0 peer to peer), in chunks so that
// the relay's two hops overlap. Median of REPS per split.
//   nvcc -O2 bench/multipath_h2d.cu -o multipath_h2d && ./multipath_h2d [MIB]
//   [REPS]
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
constexpr size_t kChunk = 32u << 20;

struct Paths {
  char *host, *dst0, *stage1;
  cudaStream_t direct, toRelay, relayOut;
  std::vector<cudaEvent_t> staged;
};

// Copies `bytes` to GPU 0: the first (1 - relayShare) directly, the rest
// through GPU 1; returns GB/s.
double copyOnce(Paths &p, size_t bytes, double relayShare) {
  size_t relayed = size_t(double(bytes) * relayShare) / kChunk * kChunk;
  size_t direct = bytes - relayed;
  auto t0 = std::chrono::steady_clock::now();
  CHECK(cudaSetDevice(0));
  if (direct)
    CHECK(cudaMemcpyAsync(p.dst0, p.host, direct, cudaMemcpyHostToDevice,
                          p.direct));
  CHECK(cudaSetDevice(1));
  for (size_t off = 0, i = 0; off < relayed; off += kChunk, ++i) {
    CHECK(cudaMemcpyAsync(p.stage1 + off, p.host + direct + off, kChunk,
                          cudaMemcpyHostToDevice, p.toRelay));
    CHECK(cudaEventRecord(p.staged[i], p.toRelay));
    CHECK(cudaStreamWaitEvent(p.relayOut, p.staged[i], 0));
    CHECK(cudaMemcpyPeerAsync(p.dst0 + direct + off, 0, p.stage1 + off, 1,
                              kChunk, p.relayOut));
  }
  CHECK(cudaStreamSynchronize(p.relayOut));
  CHECK(cudaSetDevice(0));
  CHECK(cudaStreamSynchronize(p.direct));
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return double(bytes) / s / 1e9;
}
} // namespace

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  size_t bytes = mib << 20;
  int n = 0;
  CHECK(cudaGetDeviceCount(&n));
  if (n < 2) {
    std::printf("multipath: needs two GPUs, this machine has %d\n", n);
    return 0;
  }
  int can01 = 0;
  CHECK(cudaDeviceCanAccessPeer(&can01, 1, 0));
  Paths p;
  CHECK(cudaMallocHost(&p.host, bytes));
  for (size_t i = 0; i < bytes; i += 4096)
    p.host[i] = char(i);
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&p.dst0, bytes));
  CHECK(cudaStreamCreateWithFlags(&p.direct, cudaStreamNonBlocking));
  CHECK(cudaSetDevice(1));
  if (can01)
    CHECK(cudaDeviceEnablePeerAccess(0, 0));
  CHECK(cudaMalloc(&p.stage1, bytes));
  CHECK(cudaStreamCreateWithFlags(&p.toRelay, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&p.relayOut, cudaStreamNonBlocking));
  p.staged.resize(bytes / kChunk + 1);
  for (cudaEvent_t &e : p.staged)
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  std::printf("multipath: %zu MiB pinned to GPU 0, peer access 1->0: %s, "
              "median of %d\n",
              mib, can01 ? "yes" : "no (staged through the host)", reps);
  double directGBs = 0;
  for (double share : {0.0, 1.0, 0.3, 0.4, 0.5, 0.6}) {
    std::vector<double> v;
    copyOnce(p, bytes, share); // warm-up
    for (int i = 0; i < reps; ++i)
      v.push_back(copyOnce(p, bytes, share));
    std::sort(v.begin(), v.end());
    double gbs = v[v.size() / 2];
    if (share == 0.0)
      directGBs = gbs;
    std::printf("multipath: relayed share %.1f: %.2f GB/s (%.2fx direct)\n",
                share, gbs, gbs / directGBs);
  }
  return 0;
}
