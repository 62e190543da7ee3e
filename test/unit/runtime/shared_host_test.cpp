// cudaMallocHost memory shared with a server on the same machine
// (runtime_host_share.cpp): over shm, a large pinned block is the server's
// shared region, and read-backs into it arrive with no payload and no RMA,
// correct to the byte, and large uploads from it carry no bytes; over tcp,
// below the size threshold, or with sharing turned off, the block stays private
// and copies go as before. Server: rc-server's core on the host test
// device, in this process.
#include "in_process_runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace st = rc::server::test;
using namespace rc;

namespace {

class SharedHostTest : public st::TransportRuntimeTest {
protected:
  void start(size_t sharedHostMin) {
    rt::Options opts;
    opts.sharedHostMin = sharedHostMin;
    TransportRuntimeTest::start(opts);
  }
  // Uploads a pattern, reads [offset, offset+n) of it back into `host`
  // (cudaMemcpy, or cudaMemcpyAsync + sync) and checks every byte.
  void readBackInto(uint8_t *host, size_t n, size_t offset, bool async) {
    std::vector<uint8_t> sent(offset + n);
    for (size_t i = 0; i < sent.size(); ++i)
      sent[i] = uint8_t(i * 13 + (i >> 10));
    void *d = nullptr;
    ASSERT_EQ(rt->malloc(&d, sent.size()), cudaSuccess);
    ASSERT_EQ(rt->memcpy(d, sent.data(), sent.size(), cudaMemcpyHostToDevice,
                         nullptr, false, false),
              cudaSuccess);
    std::memset(host, 0, n);
    ASSERT_EQ(rt->memcpy(host, static_cast<uint8_t *>(d) + offset, n,
                         cudaMemcpyDeviceToHost, nullptr, async, false),
              cudaSuccess);
    if (async)
      ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
    EXPECT_EQ(std::memcmp(host, sent.data() + offset, n), 0);
    EXPECT_EQ(rt->free(d), cudaSuccess);
  }
};

TEST_P(SharedHostTest, LargePinnedBlocksAreSharedOverShmOnly) {
  start(64 << 10);
  void *block = nullptr;
  const size_t size = (5 << 20) + 100; // the read-back takes two chunks
  ASSERT_EQ(rt->mallocHost(&block, size), cudaSuccess);
  auto *host = static_cast<uint8_t *>(block);
  auto before = rt->trafficStats();
  readBackInto(host + 100, size - 100, 7, /*async=*/false);
  readBackInto(host, 513 << 10, 0, /*async=*/true); // a 1B model's logits
  auto after = rt->trafficStats();
  uint64_t readBack = (size - 100) + (513 << 10);
  if (GetParam() == "shm") {
    EXPECT_EQ(after.bytesDownShared - before.bytesDownShared, readBack);
    EXPECT_EQ(after.bytesDownRma, before.bytesDownRma);
  } else {
    EXPECT_EQ(after.bytesDownShared, 0u);
    EXPECT_EQ(after.bytesDownRma - before.bytesDownRma, readBack);
  }
  EXPECT_LT(after.bytesDown - before.bytesDown, uint64_t(8192))
      << "the replies carried the payload";
  cudaPointerAttributes attr{};
  ASSERT_EQ(rt->pointerAttributes(&attr, host + 5), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost);
  EXPECT_EQ(rt->freeHost(block), cudaSuccess);
  EXPECT_EQ(rt->freeHost(block), cudaErrorInvalidValue) << "freed twice";

  // Freed and allocated again: a new region, read-backs still right.
  ASSERT_EQ(rt->mallocHost(&block, 1 << 20), cudaSuccess);
  readBackInto(static_cast<uint8_t *>(block), 1 << 20, 3, false);
  EXPECT_EQ(rt->freeHost(block), cudaSuccess);
  EXPECT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess)
      << "the server refused a region's release";
}

// Uploads of 1 MiB or more name their bytes in the shared pages (no data
// in the batch, no ring), synchronous and asynchronous; smaller ones still
// carry them. The device gets every byte.
TEST_P(SharedHostTest, LargeUploadsFromSharedBlocksCarryNoBytes) {
  start(64 << 10);
  void *block = nullptr;
  const size_t size = 3 << 20, asyncBytes = 2 << 20, small = 4096;
  ASSERT_EQ(rt->mallocHost(&block, size), cudaSuccess);
  auto *host = static_cast<uint8_t *>(block);
  for (size_t i = 0; i < size; ++i)
    host[i] = uint8_t(i * 7 + (i >> 12));
  void *d = nullptr;
  ASSERT_EQ(rt->malloc(&d, size), cudaSuccess);
  auto *dev = static_cast<uint8_t *>(d);
  auto before = rt->trafficStats();
  // The whole block but 11 bytes, then its first 2 MiB at an offset of
  // 100 (asynchronously), then 4 KiB from its end.
  ASSERT_EQ(rt->memcpy(dev, host + 11, size - 11, cudaMemcpyHostToDevice,
                       nullptr, false, false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy(dev + 100, host, asyncBytes, cudaMemcpyHostToDevice,
                       nullptr, /*async=*/true, false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy(dev, host + size - small, small, cudaMemcpyHostToDevice,
                       nullptr, false, false),
            cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  auto after = rt->trafficStats();
  std::vector<uint8_t> want(host + 11, host + size);
  std::memcpy(want.data() + 100, host, asyncBytes);
  std::memcpy(want.data(), host + size - small, small);
  std::vector<uint8_t> back(want.size());
  ASSERT_EQ(rt->memcpy(back.data(), dev, back.size(), cudaMemcpyDeviceToHost,
                       nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(back, want);
  if (GetParam() == "shm") {
    EXPECT_EQ(after.bytesUpShared - before.bytesUpShared,
              (size - 11) + asyncBytes);
    EXPECT_EQ(after.bytesUpH2dData - before.bytesUpH2dData, small)
        << "a large upload's bytes travelled, or the small one's did not";
    EXPECT_EQ(after.bytesUpRma, before.bytesUpRma) << "the ring carried them";
  } else {
    EXPECT_EQ(after.bytesUpShared, 0u);
  }
  EXPECT_EQ(rt->free(d), cudaSuccess);
  EXPECT_EQ(rt->freeHost(block), cudaSuccess);
  EXPECT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
}

TEST_P(SharedHostTest, SmallBlocksStayPrivate) {
  start(64 << 10);
  void *small = nullptr;
  ASSERT_EQ(rt->mallocHost(&small, 16 << 10), cudaSuccess);
  readBackInto(static_cast<uint8_t *>(small), 16 << 10, 0, false);
  EXPECT_EQ(rt->trafficStats().bytesDownShared, 0u);
  EXPECT_EQ(rt->freeHost(small), cudaSuccess);
}

TEST_P(SharedHostTest, TurnedOffNothingIsShared) {
  start(0); // RC_DEV_SHARED_HOST=0
  void *block = nullptr;
  ASSERT_EQ(rt->mallocHost(&block, 1 << 20), cudaSuccess);
  readBackInto(static_cast<uint8_t *>(block), 1 << 20, 0, false);
  EXPECT_EQ(rt->trafficStats().bytesDownShared, 0u);
  EXPECT_EQ(rt->freeHost(block), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(Transports, SharedHostTest,
                         ::testing::Values("shm", "tcp"));

} // namespace
