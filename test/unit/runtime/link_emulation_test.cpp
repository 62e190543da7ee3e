// RC_DEV_EMULATE_RTT_US / RC_DEV_EMULATE_GBPS: a reply is never used before the
// emulated link could have carried it. Only lower bounds are checked (a busy
// machine can make anything slower, nothing faster).
#include "core/link_emulation.h"
#include "fake_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace rc::test;
using Clock = std::chrono::steady_clock;

TEST(LinkEmulation, ReplyWaitsForTheRoundTripTime) {
  rc::rt::LinkEmulation link(3000, 0);
  auto start = Clock::now();
  link.sent(1, 100);
  link.deliver(1, 100);
  EXPECT_GE(Clock::now() - start, std::chrono::microseconds(3000));
}

TEST(LinkEmulation, BandwidthCostsTransferTimeEachWay) {
  rc::rt::LinkEmulation link(0, 1.0); // 1 GB/s: 1000 bytes per microsecond
  auto start = Clock::now();
  link.sent(1, 2000000);    // 2 ms
  link.deliver(1, 1000000); // 1 ms
  EXPECT_GE(Clock::now() - start, std::chrono::microseconds(3000));
}

// Time the real link already took counts toward the emulated one: a batch
// whose bytes started out 2 ms ago on a link that carries them in 2 ms
// waits no more.
TEST(LinkEmulation, TheRealLinksOwnTimeIsPartOfTheTransfer) {
  rc::rt::LinkEmulation link(0, 1.0);
  auto began = Clock::now();
  link.startingOut();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto start = Clock::now();
  link.sent(1, 2000000);
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1));
  // The next batch queues behind it all the same.
  link.sent(2, 1000000);
  EXPECT_GE(Clock::now() - began, std::chrono::milliseconds(3));
}

// A read-back in pieces sends its requests at once; their replies still
// share one way back, so three of 1 ms each take 3 ms, not 1.
TEST(LinkEmulation, RepliesSentTogetherArriveOneAfterAnother) {
  rc::rt::LinkEmulation link(0, 1.0);
  auto start = Clock::now();
  for (uint64_t seq = 1; seq <= 3; ++seq)
    link.sent(seq, 100);
  for (uint64_t seq = 1; seq <= 3; ++seq)
    link.deliver(seq, 1000000);
  EXPECT_GE(Clock::now() - start, std::chrono::microseconds(3000));
}

TEST(LinkEmulation, OffByDefaultAndForgetsAnsweredBatches) {
  rc::rt::LinkEmulation off(0, 0);
  EXPECT_FALSE(off.active());
  rc::rt::LinkEmulation link(1000, 0);
  link.sent(1, 10);
  link.sent(2, 10);
  link.deliver(2, 10); // batch 1 never got a reply of its own
  // Were batch 1 still remembered, a much longer RTT would apply to it now;
  // a fresh emulator with a 10 s RTT shows the difference plainly.
  rc::rt::LinkEmulation slow(10000000, 0);
  slow.sent(1, 10);
  slow.sent(2, 10);
  slow.deliver(2, 10);
  auto start = Clock::now();
  slow.deliver(1, 10); // forgotten: no second wait of 10 s
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

TEST(LinkEmulation, RuntimeRoundTripIncludesTheEmulatedDelay) {
  auto state = std::make_shared<FakeState>();
  auto opts = quietOptions();
  opts.emulateRttUs = 5000;
  auto rt = makeRuntime(state, opts, makeManifest(0x5eed, {}));
  void *p;
  ASSERT_EQ(rt->malloc(&p, 64), cudaSuccess); // connects, then a round trip
  auto start = Clock::now();
  ASSERT_EQ(rt->malloc(&p, 64), cudaSuccess);
  EXPECT_GE(Clock::now() - start, std::chrono::microseconds(5000));
}
