// Sync elision against the in-process fake server: a sync after nothing but
// uploads travels as a barrier without a round trip; a sync after device
// work, with a read-back outstanding, or with elision off still waits.
#include "fake_server.h"

#include <gtest/gtest.h>

using namespace rc::test;
using rc::rt::Runtime;

namespace {
constexpr uint64_t kScale = 0x1111;

std::shared_ptr<rc::LoadedManifest> testManifest() {
  return makeManifest(0x5eed, {{kScale,
                                "_Z5scalePfi",
                                "scale(float*, int)",
                                {{0, 8, 8}, {8, 4, 4}},
                                16,
                                "vec.cu",
                                12}});
}

cudaError_t launchScale(Runtime &rt, void *p) {
  int n = 4;
  void *args[] = {&p, &n};
  return rt.kernels().launch(kScale, dim3(2), dim3(128), args, 0, nullptr,
                             false);
}

cudaError_t upload(Runtime &rt, void *dst) {
  static const char data[64] = {1, 2, 3};
  return rt.memcpy(dst, data, sizeof data, cudaMemcpyHostToDevice, nullptr,
                   /*async=*/true, false);
}
} // namespace

TEST(RuntimeSyncElision, SyncAfterUploadsIsABarrierNotARoundTrip) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess);
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(upload(*rt, buf), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  ASSERT_EQ(upload(*rt, buf), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips) << "uploads need no wait";
  EXPECT_EQ(rt->trafficStats().syncsElided, 2u);

  // The barriers still reach the server, in order, before the next work.
  ASSERT_EQ(launchScale(*rt, buf), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1) << "a sync after a launch waits";
  std::lock_guard<std::mutex> l(state->mu);
  ASSERT_FALSE(state->batchSizes.empty());
  // upload, barrier, upload, barrier, launch, sync
  EXPECT_EQ(state->batchSizes.back(), 6u);
}

TEST(RuntimeSyncElision, SyncWithReadBackOutstandingWaits) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess);
  ASSERT_EQ(upload(*rt, buf), cudaSuccess);
  char back[64] = {};
  ASSERT_EQ(rt->memcpy(back, buf, sizeof back, cudaMemcpyDeviceToHost, nullptr,
                       /*async=*/true, false),
            cudaSuccess);
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1)
      << "the host reads `back` after this sync: it must wait";
  EXPECT_EQ(rt->trafficStats().syncsElided, 0u);
}

TEST(RuntimeSyncElision, OffWhenDisabled) {
  auto state = std::make_shared<FakeState>();
  auto opts = quietOptions();
  opts.elideSyncs = false;
  auto rt = makeRuntime(state, opts, testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess);
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(upload(*rt, buf), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1);
}

// ggml's read-back: cudaMemcpyAsync D2H, then cudaStreamSynchronize on the
// same stream. The read-back's reply already says the stream drained, so the
// sync waits for that reply: one message and one round trip, not two.
TEST(RuntimeSyncElision, SyncRightAfterAReadBackWaitsForItsReply) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess);
  ASSERT_EQ(upload(*rt, buf), cudaSuccess);
  ASSERT_EQ(launchScale(*rt, buf), cudaSuccess);
  char back[64] = {};
  uint64_t trips = rt->roundTrips(), messages = rt->messagesSent();
  ASSERT_EQ(rt->memcpy(back, buf, sizeof back, cudaMemcpyDeviceToHost, nullptr,
                       /*async=*/true, false),
            cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1);
  EXPECT_EQ(rt->messagesSent(), messages + 1) << "no batch for the sync";
  EXPECT_EQ(back[0], 1) << "the payload landed before the sync returned";
  EXPECT_EQ(rt->trafficStats().roundTripsByCall["cudaStreamSynchronize"], 1u);

  // A launch after the read-back is work the sync must wait for.
  ASSERT_EQ(rt->memcpy(back, buf, sizeof back, cudaMemcpyDeviceToHost, nullptr,
                       /*async=*/true, false),
            cudaSuccess);
  ASSERT_EQ(launchScale(*rt, buf), cudaSuccess);
  messages = rt->messagesSent();
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  EXPECT_EQ(rt->messagesSent(), messages + 1) << "the launch and a real sync";
  std::lock_guard<std::mutex> l(state->mu);
  EXPECT_EQ(state->batchSizes.back(), 2u) << "launch, sync";
}

// A read-back on one stream says nothing about another stream.
TEST(RuntimeSyncElision, SyncOfAnotherStreamAfterAReadBackStillSyncs) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess);
  cudaStream_t other = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&other, 0, 0), cudaSuccess);
  ASSERT_EQ(launchScale(*rt, buf), cudaSuccess);
  char back[64] = {};
  ASSERT_EQ(rt->memcpy(back, buf, sizeof back, cudaMemcpyDeviceToHost, nullptr,
                       /*async=*/true, false),
            cudaSuccess);
  uint64_t messages = rt->messagesSent();
  ASSERT_EQ(rt->streams().streamSynchronize(other, false), cudaSuccess);
  EXPECT_EQ(rt->messagesSent(), messages + 1) << "a real sync of `other`";
}
