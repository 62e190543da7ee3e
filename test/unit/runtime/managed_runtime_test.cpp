// Managed memory (cudaMallocManaged) against an in-process rc-server
// session on the host test device: the host mirror and the device copy
// agree at the points CUDA promises it on GPUs without concurrent managed
// access, and only what changed moves.
#include "in_process_runtime.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace st = rc::server::test;

namespace {

class ManagedRuntimeTest : public st::InProcessRuntimeTest {
protected:
  // What the device holds at p, read by a plain device-to-host copy.
  std::vector<uint8_t> deviceBytes(const void *p, size_t n) {
    std::vector<uint8_t> out(n, 0x5A);
    EXPECT_EQ(rt->memcpy(out.data(), p, n, cudaMemcpyDeviceToHost, nullptr,
                         /*async=*/false, false),
              cudaSuccess);
    return out;
  }
};

TEST_F(ManagedRuntimeTest, NewMemoryIsZeroOnBothSides) {
  void *p = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, 5000, cudaMemAttachGlobal), cudaSuccess);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(uintptr_t(p) % size_t(sysconf(_SC_PAGESIZE)), 0u);
  auto *host = static_cast<uint8_t *>(p);
  EXPECT_EQ(std::vector<uint8_t>(host, host + 5000),
            std::vector<uint8_t>(5000, 0));
  EXPECT_EQ(deviceBytes(p, 5000), std::vector<uint8_t>(5000, 0));
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

TEST_F(ManagedRuntimeTest, HostWritesReachTheDeviceBeforeItsNextWork) {
  void *p = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, 4100, cudaMemAttachGlobal), cudaSuccess);
  auto *host = static_cast<uint8_t *>(p);
  for (size_t i = 0; i < 4100; ++i)
    host[i] = uint8_t(i * 7);
  std::vector<uint8_t> seen = deviceBytes(p, 4100);
  for (size_t i = 0; i < 4100; ++i)
    ASSERT_EQ(seen[i], uint8_t(i * 7)) << "byte " << i;
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

TEST_F(ManagedRuntimeTest, DeviceWritesReachTheHostAtSynchronization) {
  void *p = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, 8192, cudaMemAttachGlobal), cudaSuccess);
  auto *host = static_cast<uint8_t *>(p);
  std::memset(host, 0x11, 8192);
  ASSERT_EQ(rt->memset(host + 100, 0xAB, 50, nullptr, false), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  for (size_t i = 0; i < 8192; ++i)
    ASSERT_EQ(host[i], i >= 100 && i < 150 ? 0xAB : 0x11) << "byte " << i;

  // A stream synchronization and a successful query are points, too.
  cudaStream_t s = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->memset(host + 4096, 0xCD, 10, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  EXPECT_EQ(host[4096 + 9], 0xCD);
  ASSERT_EQ(rt->memset(host, 0xEF, 1, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamQuery(s, false), cudaSuccess);
  EXPECT_EQ(host[0], 0xEF);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

TEST_F(ManagedRuntimeTest, CopiesIntoManagedMemoryKeepBothSidesEqual) {
  void *p = nullptr, *dev = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, 4096, cudaMemAttachGlobal), cudaSuccess);
  ASSERT_EQ(rt->malloc(&dev, 4096), cudaSuccess);
  std::vector<uint8_t> src(4096, 0x42);
  // A host-to-device copy into managed memory: the host sees it at once.
  ASSERT_EQ(rt->memcpy(p, src.data(), 4096, cudaMemcpyHostToDevice, nullptr,
                       true, false),
            cudaSuccess);
  EXPECT_EQ(static_cast<uint8_t *>(p)[4095], 0x42);
  // A copy into it named device-to-host: made on the device, which holds the
  // current copy; the synchronous copy brings it to the host too.
  ASSERT_EQ(rt->memset(dev, 0x24, 4096, nullptr, false), cudaSuccess);
  ASSERT_EQ(
      rt->memcpy(p, dev, 4096, cudaMemcpyDeviceToHost, nullptr, false, false),
      cudaSuccess);
  EXPECT_EQ(static_cast<uint8_t *>(p)[0], 0x24);
  EXPECT_EQ(deviceBytes(p, 4096), std::vector<uint8_t>(4096, 0x24));
  EXPECT_EQ(rt->free(dev), cudaSuccess);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

// Write protection finds what the host wrote: only that moves up, and
// nothing comes back when no device work ran.
TEST_F(ManagedRuntimeTest, OnlyWrittenMirrorsAreUploaded) {
  void *a = nullptr, *b = nullptr, *dev = nullptr;
  ASSERT_EQ(rt->mallocManaged(&a, 1 << 16, cudaMemAttachGlobal), cudaSuccess);
  ASSERT_EQ(rt->mallocManaged(&b, 1 << 16, cudaMemAttachGlobal), cudaSuccess);
  ASSERT_EQ(rt->malloc(&dev, 64), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);

  rc::rt::TrafficStats before = rt->trafficStats();
  static_cast<uint8_t *>(b)[5] = 1;
  ASSERT_EQ(rt->memset(dev, 0, 64, nullptr, false), cudaSuccess);
  rc::rt::TrafficStats after = rt->trafficStats();
  EXPECT_EQ(after.bytesUpH2dData + after.bytesUpRma -
                (before.bytesUpH2dData + before.bytesUpRma),
            uint64_t(1) << 16)
      << "b only, once";

  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess); // reads both back
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess); // nothing ran since
  EXPECT_EQ(rt->roundTrips(), trips + 1) << "the sync only, no read-back";
  EXPECT_EQ(static_cast<uint8_t *>(b)[5], 1);
  EXPECT_EQ(rt->free(dev), cudaSuccess);
  EXPECT_EQ(rt->free(a), cudaSuccess);
  EXPECT_EQ(rt->free(b), cudaSuccess);
}

TEST_F(ManagedRuntimeTest, AttributesAdviceAndFree) {
  void *p = nullptr, *dev = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, 100, cudaMemAttachHost), cudaSuccess);
  ASSERT_EQ(rt->malloc(&dev, 100), cudaSuccess);
  cudaPointerAttributes attr;
  ASSERT_EQ(rt->pointerAttributes(&attr, static_cast<char *>(p) + 10),
            cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeManaged);
  EXPECT_EQ(attr.hostPointer, static_cast<char *>(p) + 10);
  EXPECT_EQ(attr.devicePointer, static_cast<char *>(p) + 10);

  EXPECT_EQ(rt->memAdvise(p, 100, cudaMemAdviseSetReadMostly, 0), cudaSuccess);
  EXPECT_EQ(
      rt->memAdvise(p, 100, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId),
      cudaSuccess);
  EXPECT_EQ(rt->memAdvise(dev, 100, cudaMemAdviseSetReadMostly, 0),
            cudaErrorInvalidValue)
      << "not managed memory";
  EXPECT_EQ(rt->memAdvise(p, 100, cudaMemoryAdvise(99), 0),
            cudaErrorInvalidValue);

  void *q = nullptr;
  EXPECT_EQ(rt->mallocManaged(&q, 0, cudaMemAttachGlobal),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->mallocManaged(&q, 64, 4), cudaErrorInvalidValue);

  EXPECT_EQ(rt->free(p), cudaSuccess);
  EXPECT_EQ(rt->free(p), cudaErrorInvalidValue) << "freed already";
  EXPECT_EQ(rt->free(dev), cudaSuccess);
}

// As on GPUs without concurrent managed access: prefetching is refused
// (cudaErrorInvalidDevice), attaching to a stream is accepted for a whole
// allocation only (what attaching does: managed_fence_test.cpp).
TEST_F(ManagedRuntimeTest, PrefetchAndStreamAttachAsWithoutConcurrentAccess) {
  void *p = nullptr, *dev = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, 6000, cudaMemAttachGlobal), cudaSuccess);
  ASSERT_EQ(rt->malloc(&dev, 64), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  EXPECT_EQ(rt->memPrefetch(p, 6000, s, false), cudaErrorInvalidDevice);
  EXPECT_EQ(rt->memPrefetch(dev, 64, s, false), cudaErrorInvalidValue);

  EXPECT_EQ(rt->streamAttachMemory(s, p, 0, cudaMemAttachSingle, false),
            cudaSuccess);
  EXPECT_EQ(rt->streamAttachMemory(s, p, 6000, cudaMemAttachHost, false),
            cudaSuccess);
  EXPECT_EQ(rt->streamAttachMemory(s, p, 100, cudaMemAttachSingle, false),
            cudaErrorInvalidValue)
      << "part of an allocation";
  EXPECT_EQ(rt->streamAttachMemory(s, p, 0, 8, false), cudaErrorInvalidValue);
  EXPECT_EQ(rt->streamAttachMemory(s, dev, 0, cudaMemAttachSingle, false),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->free(dev), cudaSuccess);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

TEST_F(ManagedRuntimeTest, FaultsOutsideManagedMemoryStillKill) {
  void *p = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, 64, cudaMemAttachGlobal), cudaSuccess);
  void *ro = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(ro, MAP_FAILED);
  EXPECT_DEATH(*static_cast<volatile int *>(ro) = 1, "");
  munmap(ro, 4096);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

} // namespace
