// Large copies over a real transport (tcp and shm, loopback) go by RMA:
// read-backs are written by the server straight into the application's
// buffer (the reply carries none of the bytes), uploads are written by the
// client into the session's upload ring (the batch carries none of them).
// Small copies, copies with RMA turned off, and uploads that find the ring
// full still travel in the messages. Over shm, large read-backs into
// pageable memory go through a staging block shared with the server
// instead, unless sharing is off. Server: rc-server's core on the host
// test device, in this process.
#include "in_process_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace st = rc::server::test;
using namespace rc;

namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = uint8_t(seed + i * 7 + (i >> 12));
  return v;
}

class RmaTest : public st::TransportRuntimeTest {
protected:
  // Sharing is off unless asked for: these tests are about RMA.
  void start(size_t rmaReadbackMin, size_t rmaUploadMin = 64 << 10,
             size_t sharedHostMin = 0) {
    rt::Options opts;
    opts.rmaReadbackMin = rmaReadbackMin;
    opts.rmaUploadMin = rmaUploadMin;
    opts.sharedHostMin = sharedHostMin;
    TransportRuntimeTest::start(opts);
  }
  // Uploads `bytes`, reads them back with cudaMemcpy (or cudaMemcpyAsync +
  // cudaStreamSynchronize) and returns what came back.
  std::vector<uint8_t> roundTrip(const std::vector<uint8_t> &bytes,
                                 bool async) {
    void *d = nullptr;
    EXPECT_EQ(rt->malloc(&d, bytes.size()), cudaSuccess);
    EXPECT_EQ(rt->memcpy(d, bytes.data(), bytes.size(), cudaMemcpyHostToDevice,
                         nullptr, false, false),
              cudaSuccess);
    std::vector<uint8_t> out(bytes.size(), 0);
    EXPECT_EQ(rt->memcpy(out.data(), d, out.size(), cudaMemcpyDeviceToHost,
                         nullptr, async, false),
              cudaSuccess);
    if (async)
      EXPECT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
    EXPECT_EQ(rt->free(d), cudaSuccess);
    return out;
  }
};

TEST_P(RmaTest, LargeReadBacksAreWrittenIntoTheDestination) {
  start(64 << 10);
  // One chunk, and several (the runtime splits at 4 MiB).
  for (size_t size : {size_t(513 << 10), size_t((9 << 20) + 3)}) {
    auto sent = pattern(size, uint8_t(size));
    auto before = rt->trafficStats();
    EXPECT_EQ(roundTrip(sent, /*async=*/false), sent) << size << " bytes";
    auto after = rt->trafficStats();
    EXPECT_EQ(after.bytesDownRma - before.bytesDownRma, size);
    EXPECT_LT(after.bytesDown - before.bytesDown, uint64_t(4096))
        << "the replies carried the payload too";
  }
  auto sent = pattern(1 << 20, 5);
  EXPECT_EQ(roundTrip(sent, /*async=*/true), sent) << "cudaMemcpyAsync";
}

// More chunks than the staging block has slots (8 of 4 MiB), so slots are
// written again after their bytes were copied out; cudaMemcpyAsync too.
TEST_P(RmaTest, LargeReadBacksIntoPageableMemoryAreStagedOverShm) {
  start(64 << 10, 64 << 10, rt::Options().sharedHostMin);
  const bool shm = GetParam() == std::string("shm");
  for (bool async : {false, true}) {
    auto sent = pattern((41 << 20) + 3, async ? 17 : 13);
    auto before = rt->trafficStats();
    EXPECT_EQ(roundTrip(sent, async), sent) << (async ? "async" : "sync");
    auto after = rt->trafficStats();
    EXPECT_EQ(after.bytesDownShared - before.bytesDownShared,
              shm ? sent.size() : 0);
    EXPECT_EQ(after.bytesDownRma - before.bytesDownRma, shm ? 0 : sent.size());
  }
}

// Over tcp lanes an RMA read-back's reply carries none of its bytes, so it
// goes in 32 MiB chunks instead of a reply's 4 MiB: 70 MiB + 3 come back in
// three commands, intact (shm, without lanes: 18).
TEST_P(RmaTest, ReadBacksOverLanesGoInLargeChunks) {
  start(64 << 10);
  auto sent = pattern((70 << 20) + 3, 21);
  void *d = nullptr;
  ASSERT_EQ(rt->malloc(&d, sent.size()), cudaSuccess);
  ASSERT_EQ(rt->memcpy(d, sent.data(), sent.size(), cudaMemcpyHostToDevice,
                       nullptr, false, false),
            cudaSuccess);
  std::vector<uint8_t> out(sent.size(), 0);
  auto before = rt->trafficStats();
  ASSERT_EQ(rt->memcpy(out.data(), d, out.size(), cudaMemcpyDeviceToHost,
                       nullptr, false, false),
            cudaSuccess);
  auto after = rt->trafficStats();
  EXPECT_EQ(out, sent);
  const bool tcp = GetParam() == std::string("tcp");
  EXPECT_EQ(after.commands - before.commands, tcp ? 3u : 18u);
  EXPECT_EQ(after.bytesDownRma - before.bytesDownRma, sent.size());
  EXPECT_EQ(rt->free(d), cudaSuccess);
}

// Managed memory moves by the same paths: its upload is read from, and its
// read-back written into, the runtime's own mapping of the mirror's pages,
// while the application's mapping stays fenced until the bytes are in.
TEST_P(RmaTest, ManagedMemoryMovesByRmaThroughTheRuntimesMapping) {
  start(64 << 10, 64 << 10, rt::Options().sharedHostMin);
  const size_t size = (9 << 20) + 3;
  auto sent = pattern(size, 11);
  void *p = nullptr;
  ASSERT_EQ(rt->mallocManaged(&p, size, cudaMemAttachGlobal), cudaSuccess);
  auto *host = static_cast<uint8_t *>(p);
  std::copy(sent.begin(), sent.end(), host);
  auto before = rt->trafficStats();
  ASSERT_EQ(rt->memset(host + 100, 0xEE, 4000, nullptr, false), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  auto after = rt->trafficStats();
  EXPECT_GE(after.bytesUpRma - before.bytesUpRma, size) << "the upload";
  EXPECT_GE(after.bytesDownRma + after.bytesDownShared -
                (before.bytesDownRma + before.bytesDownShared),
            size)
      << "the read-back";
  for (size_t i = 0; i < size; ++i)
    ASSERT_EQ(host[i], i >= 100 && i < 4100 ? 0xEE : sent[i]) << "byte " << i;
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

TEST_P(RmaTest, SmallReadBacksTravelInTheReply) {
  start(64 << 10);
  auto sent = pattern(4096, 9);
  auto before = rt->trafficStats();
  EXPECT_EQ(roundTrip(sent, false), sent);
  auto after = rt->trafficStats();
  EXPECT_EQ(after.bytesDownRma, before.bytesDownRma);
  EXPECT_GE(after.bytesDown - before.bytesDown, sent.size());
}

TEST_P(RmaTest, TurnedOffEverythingTravelsInTheReply) {
  start(0, 0); // RC_DEV_RMA_READBACK_MIN=0 RC_DEV_RMA_UPLOAD_MIN=0
  auto sent = pattern(2 << 20, 3);
  EXPECT_EQ(roundTrip(sent, false), sent);
  EXPECT_EQ(rt->trafficStats().bytesDownRma, 0u);
  EXPECT_GE(rt->trafficStats().bytesDown, sent.size());
  EXPECT_EQ(rt->trafficStats().bytesUpRma, 0u);
  EXPECT_GE(rt->trafficStats().bytesUp, sent.size());
}

TEST_P(RmaTest, LargeUploadsAreWrittenIntoTheUploadRing) {
  start(64 << 10);
  auto sent = pattern((9 << 20) + 5, 11); // three pieces (4 MiB chunks)
  EXPECT_EQ(roundTrip(sent, false), sent);
  EXPECT_EQ(rt->trafficStats().bytesUpRma, sent.size());
  EXPECT_LT(rt->trafficStats().bytesUp, uint64_t(64 << 10))
      << "the batches carried the upload too";

  // Like an inline upload, a ring upload is no device work: the sync after
  // it (ggml's tensor upload) is elided, no round trip.
  void *d = nullptr;
  ASSERT_EQ(rt->malloc(&d, sent.size()), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false),
            cudaSuccess); // settled
  uint64_t before = rt->roundTrips();
  ASSERT_EQ(rt->memcpy(d, sent.data(), sent.size(), cudaMemcpyHostToDevice,
                       nullptr, /*async=*/true, false),
            cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), before);
  EXPECT_EQ(rt->trafficStats().bytesUpRma, 2 * sent.size());
}

// A large upload goes into the ring in 1 MiB pieces (a tail too small for
// the ring rides with the last one), each in a batch of its own that
// leaves as soon as the piece is written: the server copies a piece to the
// device while the next one is written, instead of after the whole upload.
// Uploads `size` bytes with cudaMemcpyAsync, reads them back, and returns
// how many batches the upload itself sent.
uint64_t uploadBatches(rt::Runtime &rt, size_t size, uint8_t seed) {
  auto sent = pattern(size, seed);
  void *d = nullptr;
  EXPECT_EQ(rt.malloc(&d, sent.size()), cudaSuccess);
  uint64_t before = rt.messagesSent();
  EXPECT_EQ(rt.memcpy(d, sent.data(), sent.size(), cudaMemcpyHostToDevice,
                      nullptr, /*async=*/true, false),
            cudaSuccess);
  uint64_t batches = rt.messagesSent() - before;
  std::vector<uint8_t> out(sent.size());
  EXPECT_EQ(rt.memcpy(out.data(), d, out.size(), cudaMemcpyDeviceToHost,
                      nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(out, sent);
  return batches;
}

TEST_P(RmaTest, RingUploadPiecesLeaveOneBatchEachAsTheyAreWritten) {
  start(64 << 10);
  size_t size = (5 << 20) + 7; // five 1 MiB pieces, the last with the tail
  EXPECT_EQ(uploadBatches(*rt, size, 13), 5u);
  EXPECT_EQ(rt->trafficStats().bytesUpRma, size);
}

// A 1 MiB ring and uploads of 300 KB with no round trip in between: three
// fit; the fourth finds the ring full and asks how far the server's copies
// have come (a round trip) instead of going inline, and so on: every piece
// goes through the ring and every byte arrives.
TEST_P(RmaTest, UploadsThatFindTheRingFullAskForItsSpace) {
  setenv("RC_SERVER_UPLOAD_RING_MIB", "1", 1);
  start(64 << 10);
  unsetenv("RC_SERVER_UPLOAD_RING_MIB");
  const size_t piece = 300 << 10, pieces = 8;
  void *d = nullptr;
  ASSERT_EQ(rt->malloc(&d, piece * pieces), cudaSuccess);
  auto sent = pattern(piece * pieces, 21);
  uint64_t roundTrips = rt->roundTrips();
  for (size_t i = 0; i < pieces; ++i)
    ASSERT_EQ(rt->memcpy(static_cast<uint8_t *>(d) + i * piece,
                         sent.data() + i * piece, piece, cudaMemcpyHostToDevice,
                         nullptr, /*async=*/true, false),
              cudaSuccess);
  EXPECT_EQ(rt->trafficStats().bytesUpRma, pieces * piece);
  EXPECT_EQ(rt->trafficStats().bytesUpH2dData, 0u) << "a piece went inline";
  EXPECT_GE(rt->roundTrips() - roundTrips, 2u) << "the ring filled twice";
  std::vector<uint8_t> out(sent.size());
  ASSERT_EQ(rt->memcpy(out.data(), d, out.size(), cudaMemcpyDeviceToHost,
                       nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(out, sent);
}

INSTANTIATE_TEST_SUITE_P(Providers, RmaTest, ::testing::Values("tcp", "shm"),
                         [](const auto &info) { return info.param; });

} // namespace
