// Copy bandwidth by size and stream count, and copies overlapping kernels
// (the sweep of bench/results/bulk/; bench/copy_bandwidth.cu measures one
// large synchronous copy). For each size of 64 KiB, 1 MiB, 16 MiB, 256 MiB and
// 1 GiB up to MAX_MIB MiB: pinned (cudaMallocHost) host to device and back with
// cudaMemcpyAsync, the size split evenly over 1, 2 and 4 streams, and
// pageable (std::vector) with cudaMemcpy on one stream. Then cuda-samples'
// simpleMultiCopy idea: 4 streams, each copying chunks of min(MAX_MIB, 256)
// MiB of ints in, adding 1 on the device and copying them out, so copies of
// both directions and kernels overlap; its GB/s counts the bytes in and out.
// Every case: one warm-up, then the median of REPS; a sample is timed from
// before its first copy is enqueued to after cudaDeviceSynchronize. One line
// per measurement:
//   sweep h2d pinned 65536 B 2 streams 12.34 GB/s
//   sweep d2h pageable 1048576 B 1 streams 5.67 GB/s
//   overlap 4 streams 268435456 B 45.67 GB/s
// Built and run like copy_bandwidth.cu (bench/bulk.sh runs both):
//   remote-clang++ -O2 bench/copy_streams.cu -o copy_streams
//   rc-server --listen shm://cs --manifest copy_streams.rcm &
//   RC_SERVER=shm://cs ./copy_streams [MAX_MIB] [REPS]      (1024, 5)
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

constexpr size_t MiB = size_t(1) << 20;
constexpr int OverlapStreams = 4;
constexpr int OverlapRounds = 4; // chunks per stream

__global__ void addOne(const int *in, int *out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1;
}

// Median seconds of `reps` runs of `enqueue` after one warm-up, each timed
// from before it enqueues its first copy to after the device is idle.
template <typename Enqueue>
static double medianSeconds(int reps, Enqueue enqueue) {
  enqueue();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> secs;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    enqueue();
    CHECK(cudaDeviceSynchronize());
    secs.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  std::sort(secs.begin(), secs.end());
  return secs[secs.size() / 2];
}

// Copies per sample: sizes up to 1 MiB are repeated until a sample moves at
// least 64 MiB, so their numbers are bandwidth rather than one round trip's
// latency. Larger sizes are copied once.
static int copiesPerSample(size_t bytes) {
  return bytes <= MiB ? int((64 * MiB + bytes - 1) / bytes) : 1;
}

// Enqueues one copy of `bytes`, split evenly over the streams: stream i
// copies the i-th contiguous share (the last one also the remainder).
static void enqueueSplit(char *dst, const char *src, size_t bytes,
                         cudaMemcpyKind kind,
                         const std::vector<cudaStream_t> &streams) {
  size_t share = bytes / streams.size();
  for (size_t i = 0; i < streams.size(); ++i) {
    size_t offset = i * share;
    size_t length = i + 1 == streams.size() ? bytes - offset : share;
    CHECK(
        cudaMemcpyAsync(dst + offset, src + offset, length, kind, streams[i]));
  }
}

static void printSweep(const char *direction, const char *memory, size_t bytes,
                       size_t streams, double gbs) {
  std::printf("sweep %s %s %zu B %zu streams %.2f GB/s\n", direction, memory,
              bytes, streams, gbs);
}

// Pinned copies with cudaMemcpyAsync over `streamCount` streams, each
// direction; `host` and `dev` hold at least `bytes`.
static void sweepPinned(char *host, char *dev, size_t bytes, int streamCount,
                        int reps) {
  std::vector<cudaStream_t> streams(streamCount);
  for (cudaStream_t &s : streams)
    CHECK(cudaStreamCreate(&s));
  int copies = copiesPerSample(bytes);
  double moved = double(bytes) * copies;
  double up = medianSeconds(reps, [&] {
    for (int c = 0; c < copies; ++c)
      enqueueSplit(dev, host, bytes, cudaMemcpyHostToDevice, streams);
  });
  printSweep("h2d", "pinned", bytes, streams.size(), moved / up / 1e9);
  double down = medianSeconds(reps, [&] {
    for (int c = 0; c < copies; ++c)
      enqueueSplit(host, dev, bytes, cudaMemcpyDeviceToHost, streams);
  });
  printSweep("d2h", "pinned", bytes, streams.size(), moved / down / 1e9);
  for (cudaStream_t s : streams)
    CHECK(cudaStreamDestroy(s));
}

// Pageable copies with plain cudaMemcpy, each direction.
static void sweepPageable(char *host, char *dev, size_t bytes, int reps) {
  int copies = copiesPerSample(bytes);
  double moved = double(bytes) * copies;
  double up = medianSeconds(reps, [&] {
    for (int c = 0; c < copies; ++c)
      CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
  });
  printSweep("h2d", "pageable", bytes, 1, moved / up / 1e9);
  double down = medianSeconds(reps, [&] {
    for (int c = 0; c < copies; ++c)
      CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
  });
  printSweep("d2h", "pageable", bytes, 1, moved / down / 1e9);
}

// Every size up to maxBytes, pinned over 1, 2 and 4 streams, then pageable.
static void sweep(size_t maxBytes, int reps) {
  char *dev = nullptr, *pinned = nullptr;
  CHECK(cudaMalloc(&dev, maxBytes));
  CHECK(cudaMallocHost(&pinned, maxBytes));
  std::memset(pinned, 1, maxBytes);
  std::vector<char> pageable(maxBytes, 1);
  const size_t sizes[] = {64 << 10, MiB, 16 * MiB, 256 * MiB, 1024 * MiB};
  for (size_t bytes : sizes) {
    if (bytes > maxBytes)
      break;
    for (int streams : {1, 2, 4})
      sweepPinned(pinned, dev, bytes, streams, reps);
    sweepPageable(pageable.data(), dev, bytes, reps);
  }
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(dev));
}

// Enqueues the whole overlap pass: the buffers in OverlapStreams *
// OverlapRounds chunks, issued breadth-first (round r gives each stream its
// next chunk), each chunk copied in, incremented into devOut, copied out.
static void enqueueOverlap(const int *hostIn, int *hostOut, int *devIn,
                           int *devOut, size_t count,
                           const std::vector<cudaStream_t> &streams) {
  size_t chunk = count / (streams.size() * OverlapRounds);
  unsigned blocks = unsigned((chunk + 255) / 256);
  for (int round = 0; round < OverlapRounds; ++round) {
    for (size_t s = 0; s < streams.size(); ++s) {
      size_t first = (round * streams.size() + s) * chunk;
      CHECK(cudaMemcpyAsync(devIn + first, hostIn + first, chunk * sizeof(int),
                            cudaMemcpyHostToDevice, streams[s]));
      addOne<<<blocks, 256, 0, streams[s]>>>(devIn + first, devOut + first,
                                             chunk);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpyAsync(hostOut + first, devOut + first,
                            chunk * sizeof(int), cudaMemcpyDeviceToHost,
                            streams[s]));
    }
  }
}

// Exits 1 unless every output element is its input plus one.
static void verifyOverlap(const int *in, const int *out, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (out[i] != in[i] + 1) {
      std::fprintf(stderr, "overlap: element %zu is %d, expected %d\n", i,
                   out[i], in[i] + 1);
      std::exit(1);
    }
  }
}

// Copy in, kernel, copy out on OverlapStreams streams at once; `bytes` is
// one direction's total, a multiple of the chunk count.
static void overlap(size_t bytes, int reps) {
  size_t count = bytes / sizeof(int);
  int *hostIn = nullptr, *hostOut = nullptr, *devIn = nullptr,
      *devOut = nullptr;
  CHECK(cudaMallocHost(&hostIn, bytes));
  CHECK(cudaMallocHost(&hostOut, bytes));
  CHECK(cudaMalloc(&devIn, bytes));
  CHECK(cudaMalloc(&devOut, bytes));
  for (size_t i = 0; i < count; ++i)
    hostIn[i] = int(i);
  std::memset(hostOut, 0, bytes);
  std::vector<cudaStream_t> streams(OverlapStreams);
  for (cudaStream_t &s : streams)
    CHECK(cudaStreamCreate(&s));
  double secs = medianSeconds(reps, [&] {
    enqueueOverlap(hostIn, hostOut, devIn, devOut, count, streams);
  });
  std::printf("overlap %d streams %zu B %.2f GB/s\n", OverlapStreams, bytes,
              2.0 * double(bytes) / secs / 1e9);
  verifyOverlap(hostIn, hostOut, count);
  for (cudaStream_t s : streams)
    CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(devOut));
  CHECK(cudaFree(devIn));
  CHECK(cudaFreeHost(hostOut));
  CHECK(cudaFreeHost(hostIn));
}

int main(int argc, char **argv) {
  int maxMib = argc > 1 ? std::atoi(argv[1]) : 1024;
  int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (maxMib < 1 || reps < 1) {
    std::fprintf(stderr, "usage: copy_streams [MAX_MIB >= 1] [REPS >= 1]\n");
    return 2;
  }
  // Line-buffered: a run cut short by a time limit keeps its lines.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  sweep(size_t(maxMib) * MiB, reps);
  overlap(size_t(std::min(maxMib, 256)) * MiB, reps);
  return 0;
}
