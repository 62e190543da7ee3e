// The doorbell a shm client hands rc-server (transport/src/doorbell.h):
// a ring wakes a sleeper, a ring that comes first is not lost, and the
// server maps nothing but a sealed memory file of the doorbell's size.
#include "doorbell.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using rc::transport::detail::Doorbell;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int64_t kLongSleepUs = 30 * 1000 * 1000;

// The client's doorbell and the server's mapping of it (through a second
// descriptor, as SCM_RIGHTS would give it).
struct Pair {
  std::unique_ptr<Doorbell> ringer, sleeper;
};

Pair makePair() {
  Pair p;
  std::string err;
  p.ringer = Doorbell::create(&err);
  EXPECT_TRUE(p.ringer) << err;
  if (p.ringer) {
    p.sleeper = Doorbell::attach(dup(p.ringer->fd()), &err);
    EXPECT_TRUE(p.sleeper) << err;
  }
  return p;
}

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
} // namespace

TEST(Doorbell, RingWakesASleeperInAnotherMapping) {
  Pair p = makePair();
  ASSERT_TRUE(p.sleeper);
  p.sleeper->prepareToSleep();
  auto start = Clock::now();
  std::thread t([&] { p.sleeper->sleep(kLongSleepUs); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  p.ringer->ring();
  t.join();
  EXPECT_LT(secondsSince(start), 10.0) << "the ring did not wake it";
  Doorbell::Counts c = p.sleeper->counts();
  EXPECT_EQ(c.sleeps, 1u);
  EXPECT_EQ(c.timeouts, 0u);
}

TEST(Doorbell, RingBeforeTheSleepIsNotLost) {
  Pair p = makePair();
  ASSERT_TRUE(p.sleeper);
  p.sleeper->prepareToSleep();
  p.ringer->ring(); // the message came between arming and sleeping
  auto start = Clock::now();
  p.sleeper->sleep(kLongSleepUs);
  EXPECT_LT(secondsSince(start), 10.0);
  EXPECT_EQ(p.sleeper->counts().timeouts, 0u);
}

TEST(Doorbell, SleepWithoutRingEndsAtItsTimeout) {
  Pair p = makePair();
  ASSERT_TRUE(p.sleeper);
  p.ringer->ring(); // nobody sleeps: nothing to undo
  p.sleeper->prepareToSleep();
  p.sleeper->sleep(20 * 1000);
  EXPECT_EQ(p.sleeper->counts().timeouts, 1u);
  // A cancelled sleep leaves the word clear: a later ring wakes nobody
  // and the next sleep still waits for its own ring.
  p.sleeper->prepareToSleep();
  p.sleeper->cancelSleep();
  p.ringer->ring();
  p.sleeper->prepareToSleep();
  p.sleeper->sleep(20 * 1000);
  EXPECT_EQ(p.sleeper->counts().timeouts, 2u);
}

TEST(Doorbell, AttachRefusesAnythingButASealedDoorbellFile) {
  std::string err;
  int unsealed = memfd_create("t", MFD_CLOEXEC);
  ASSERT_EQ(ftruncate(unsealed, 4096), 0);
  EXPECT_FALSE(Doorbell::attach(unsealed, &err)) << "no seal against shrinking";
  EXPECT_NE(err.find("sealed"), std::string::npos) << err;

  int wrongSize = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(ftruncate(wrongSize, 64), 0);
  ASSERT_EQ(fcntl(wrongSize, F_ADD_SEALS, F_SEAL_SHRINK), 0);
  EXPECT_FALSE(Doorbell::attach(wrongSize, &err)) << "smaller than a page";

  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[1]);
  EXPECT_FALSE(Doorbell::attach(fds[0], &err)) << "a pipe";

  std::unique_ptr<Doorbell> good = Doorbell::create(&err);
  ASSERT_TRUE(good) << err;
  EXPECT_TRUE(Doorbell::attach(dup(good->fd()), &err)) << err;
}
