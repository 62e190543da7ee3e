// Copies of every size class in every direction, each byte checked: sizes
// from 0 B past 128 MiB (4 GiB with --huge), odd sizes and unaligned host
// and device offsets, from pageable and pinned memory, synchronous and
// asynchronous, host to device, device to host, device to device and 2D.
// Bytes beside every destination are checked too: a copy must write exactly
// where it was asked to. scripts/run-copy-matrix.sh runs it over every
// transport and RMA setting.
//   copy_sizes [--huge]
#include "check.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

// Differs along the buffer (a byte that lands one place off shows) and with
// the seed (a stale copy shows), and is cheap on both sides.
__host__ __device__ inline uint8_t patternByte(uint64_t i, uint32_t seed) {
  uint32_t x = uint32_t(i) * 2654435761u + uint32_t(i >> 32) * 40503u +
               seed * 2246822519u;
  return uint8_t(x >> 24);
}

// On a real GPU the device fills its memory itself, so a read-back is
// checked against bytes that never crossed the link the other way.
__global__ void fillPattern(uint8_t *p, uint64_t n, uint32_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x)
    p[i] = patternByte(i, seed);
}

constexpr size_t kGuard = 64; // bytes checked on both sides of a destination
constexpr uint8_t kUntouched = 0xee;

long cases = 0, failures = 0;

void fillHost(uint8_t *p, uint64_t n, uint32_t seed) {
  for (uint64_t i = 0; i < n; ++i)
    p[i] = patternByte(i, seed);
}

// `got` must hold pattern(seed) for n bytes, and the kGuard bytes on each
// side of it must be untouched.
void expectPattern(const std::string &what, const uint8_t *got, uint64_t n,
                   uint32_t seed) {
  ++cases;
  for (size_t g = 1; g <= kGuard; ++g)
    if (got[-long(g)] != kUntouched || got[n + g - 1] != kUntouched) {
      std::fprintf(stderr, "FAIL %s: a byte beside the destination changed\n",
                   what.c_str());
      ++failures;
      return;
    }
  for (uint64_t i = 0; i < n; ++i)
    if (got[i] != patternByte(i, seed)) {
      std::fprintf(stderr, "FAIL %s: byte %llu is 0x%02x, expected 0x%02x\n",
                   what.c_str(), (unsigned long long)i, got[i],
                   patternByte(i, seed));
      ++failures;
      return;
    }
}

// Host memory with kGuard untouched bytes on each side of [offset, +n).
struct HostBuffer {
  HostBuffer(uint64_t n, size_t offset, bool pinned) : pinned(pinned) {
    size_t total = n + offset + 2 * kGuard;
    if (pinned)
      CHECK(cudaMallocHost(&base, total));
    else
      base = static_cast<uint8_t *>(std::malloc(total));
    if (!base) {
      std::fprintf(stderr, "FAIL: no host memory for %zu bytes\n", total);
      std::exit(1);
    }
    std::memset(base, kUntouched, total);
    data = base + kGuard + offset;
  }
  ~HostBuffer() {
    if (pinned)
      cudaFreeHost(base);
    else
      std::free(base);
  }
  bool pinned;
  uint8_t *base = nullptr;
  uint8_t *data = nullptr;
};

// Device memory with kGuard untouched bytes on each side of [offset, +n).
struct DeviceBuffer {
  DeviceBuffer(uint64_t n, size_t offset) : total(n + offset + 2 * kGuard) {
    CHECK(cudaMalloc(&base, total));
    CHECK(cudaMemset(base, kUntouched, total));
    data = base + kGuard + offset;
  }
  ~DeviceBuffer() { cudaFree(base); }
  uint64_t total;
  uint8_t *base = nullptr;
  uint8_t *data = nullptr;
};

std::string describe(const char *kind, uint64_t n, size_t hostOffset,
                     size_t deviceOffset) {
  return std::string(kind) + " of " + std::to_string(n) + " bytes (host +" +
         std::to_string(hostOffset) + ", device +" +
         std::to_string(deviceOffset) + ")";
}

// Host to device and back, both checked (the device's copy with its guard
// bytes, read back whole).
void roundTrip(uint64_t n, size_t hostOffset, size_t deviceOffset, bool pinned,
               bool async, uint32_t seed) {
  const char *kind = pinned
                         ? (async ? "pinned async H2D+D2H" : "pinned H2D+D2H")
                         : (async ? "async H2D+D2H" : "H2D+D2H");
  std::string what = describe(kind, n, hostOffset, deviceOffset);
  HostBuffer in(n, hostOffset, pinned), out(n, hostOffset + 1, pinned);
  DeviceBuffer dev(n, deviceOffset);
  fillHost(in.data, n, seed);
  cudaStream_t s = nullptr;
  if (async) {
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyAsync(dev.data, in.data, n, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(out.data, dev.data, n, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
  } else {
    CHECK(cudaMemcpy(dev.data, in.data, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(out.data, dev.data, n, cudaMemcpyDeviceToHost));
  }
  expectPattern(what + ", read back", out.data, n, seed);
  if (n <= (8u << 20)) { // the device side, guards included
    HostBuffer whole(dev.total - 2 * kGuard, 0, false);
    CHECK(cudaMemcpy(whole.data - kGuard, dev.base, dev.total,
                     cudaMemcpyDeviceToHost));
    expectPattern(what + ", on the device", whole.data + deviceOffset, n, seed);
  }
}

// Device memory filled by the GPU itself, read back.
void deviceFilledReadBack(uint64_t n, size_t hostOffset, uint32_t seed) {
  DeviceBuffer dev(n, 0);
  if (n)
    fillPattern<<<1024, 256>>>(dev.data, n, seed);
  CHECK_LAUNCH();
  HostBuffer out(n, hostOffset, false);
  CHECK(cudaMemcpy(out.data, dev.data, n, cudaMemcpyDeviceToHost));
  expectPattern(describe("GPU-filled D2H", n, hostOffset, 0), out.data, n,
                seed);
}

void deviceToDevice(uint64_t n, size_t srcOffset, size_t dstOffset,
                    uint32_t seed) {
  HostBuffer in(n, 0, false);
  fillHost(in.data, n, seed);
  DeviceBuffer src(n, srcOffset), dst(n, dstOffset);
  CHECK(cudaMemcpy(src.data, in.data, n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dst.data, src.data, n, cudaMemcpyDeviceToDevice));
  HostBuffer whole(dst.total - 2 * kGuard, 0, false);
  CHECK(cudaMemcpy(whole.data - kGuard, dst.base, dst.total,
                   cudaMemcpyDeviceToHost));
  expectPattern(describe("D2D", n, srcOffset, dstOffset),
                whole.data + dstOffset, n, seed);
}

// Sizes past 32 bits with one host buffer (the test device's memory is the
// server's host memory too): up, cleared, back into the same place.
void hugeRoundTrip(uint64_t n, size_t hostOffset, size_t deviceOffset,
                   uint32_t seed) {
  HostBuffer buf(n, hostOffset, false);
  DeviceBuffer dev(n, deviceOffset);
  fillHost(buf.data, n, seed);
  CHECK(cudaMemcpy(dev.data, buf.data, n, cudaMemcpyHostToDevice));
  std::memset(buf.data, 0, n);
  CHECK(cudaMemcpy(buf.data, dev.data, n, cudaMemcpyDeviceToHost));
  expectPattern(describe("H2D+D2H", n, hostOffset, deviceOffset), buf.data, n,
                seed);
}

// A 2D copy up with one pitch on each side and back with a third; every
// row checked, and the bytes between rows untouched.
void copy2D(size_t width, size_t height, uint32_t seed) {
  size_t hostPitch = width + 3, devicePitch = width + 61, outPitch = width + 11;
  HostBuffer in(hostPitch * height, 0, false);
  HostBuffer out(outPitch * height, 0, false);
  DeviceBuffer dev(devicePitch * height, 0);
  for (size_t r = 0; r < height; ++r)
    fillHost(in.data + r * hostPitch, width, seed + uint32_t(r));
  CHECK(cudaMemcpy2D(dev.data, devicePitch, in.data, hostPitch, width, height,
                     cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2D(out.data, outPitch, dev.data, devicePitch, width, height,
                     cudaMemcpyDeviceToHost));
  std::string what =
      "2D " + std::to_string(width) + " x " + std::to_string(height) + " bytes";
  ++cases;
  for (size_t r = 0; r < height; ++r) {
    const uint8_t *row = out.data + r * outPitch;
    bool ok = std::memcmp(row, in.data + r * hostPitch, width) == 0;
    for (size_t g = width; g < outPitch && ok; ++g)
      ok = row[g] == kUntouched;
    if (!ok) {
      std::fprintf(stderr, "FAIL %s: row %zu differs\n", what.c_str(), r);
      ++failures;
      return;
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  bool huge = argc > 1 && std::strcmp(argv[1], "--huge") == 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // The test device records launches without running them.
  bool realGpu = std::strstr(prop.name, "test device") == nullptr;

  // Both sides of the thresholds: 4 KiB (inject), 64 KiB (RMA, the upload
  // ring), 1 MiB (transport fragments, ring pieces), 4 MiB (the runtime's
  // chunks), more chunks than the 16 cached registrations (129 MiB).
  const uint64_t sizes[] = {0,
                            1,
                            3,
                            4095,
                            4097,
                            65535,
                            65536,
                            65537,
                            (1u << 20) - 1,
                            (1u << 20) + 1,
                            (4u << 20) - 1,
                            4u << 20,
                            (4u << 20) + 1,
                            (33u << 20) + 5,
                            (129u << 20) + 3};
  uint32_t seed = 1;
  for (uint64_t n : sizes) {
    roundTrip(n, 3, 5, false, false, ++seed);
    roundTrip(n, 1, 7, true, true, ++seed);
    deviceToDevice(n, 0, 5, ++seed);
    if (realGpu)
      deviceFilledReadBack(n, 3, ++seed);
    if (n > (4u << 20) + 1)
      continue; // the rest would only repeat the paths at more cost
    roundTrip(n, 0, 0, false, false, ++seed);
    roundTrip(n, 5, 1, false, true, ++seed);
    roundTrip(n, 0, 3, true, false, ++seed);
  }
  for (size_t width :
       {size_t(1), size_t(5), size_t(4097), size_t(65537), size_t(1 << 20) + 3})
    for (size_t height : {size_t(1), size_t(3), size_t(17)})
      copy2D(width, height, ++seed);
  if (huge) { // past 32-bit sizes and offsets
    const uint64_t n = (4ull << 30) + 3;
    hugeRoundTrip(n, 3, 5, ++seed);
    if (realGpu)
      deviceFilledReadBack(n, 1, ++seed);
  }
  std::printf("%s copy_sizes: %ld cases, %ld failed\n",
              failures ? "FAIL" : "PASS", cases, failures);
  return failures ? 1 : 0;
}
