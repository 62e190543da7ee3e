// AuthThrottle: failures make the failing host (and, shorter, everyone)
// wait; the wait doubles up to a cap, and is forgotten after a success or
// a quiet period. Times are given, so nothing here sleeps.
#include "rc/server/auth_throttle.h"

#include <gtest/gtest.h>

using rc::server::AuthThrottle;

namespace {

AuthThrottle::Policy policy() {
  AuthThrottle::Policy p;
  p.hostFirstMs = 100;
  p.hostCapMs = 1000;
  p.globalFirstMs = 10;
  p.globalCapMs = 40;
  return p;
}

TEST(AuthThrottle, NoFailuresNoWait) {
  AuthThrottle t(policy());
  EXPECT_EQ(t.waitMs("10.0.0.1", 5000), 0u);
}

TEST(AuthThrottle, AHostsWaitDoublesUpToTheCap) {
  AuthThrottle t(policy());
  uint64_t now = 10000;
  uint64_t expected[] = {100, 200, 400, 800, 1000, 1000};
  for (uint64_t wait : expected) {
    t.recordFailure("10.0.0.1", now);
    EXPECT_EQ(t.waitMs("10.0.0.1", now), wait);
    EXPECT_EQ(t.waitMs("10.0.0.1", now + wait), 0u);
    now += wait; // the next attempt comes as soon as it may
  }
}

TEST(AuthThrottle, OtherHostsWaitOnlyTheShortGlobalTime) {
  AuthThrottle t(policy());
  for (int i = 0; i < 5; ++i)
    t.recordFailure("10.0.0.1", 10000);
  EXPECT_EQ(t.waitMs("10.0.0.1", 10000), 1000u);
  EXPECT_EQ(t.waitMs("10.0.0.2", 10000), 40u); // global cap
  EXPECT_EQ(t.waitMs("10.0.0.2", 10040), 0u);
}

TEST(AuthThrottle, SuccessForgetsTheHostsFailures) {
  AuthThrottle t(policy());
  t.recordFailure("10.0.0.1", 10000);
  t.recordFailure("10.0.0.1", 10000);
  t.recordSuccess("10.0.0.1");
  EXPECT_EQ(t.waitMs("10.0.0.1", 10100), 0u);
  t.recordFailure("10.0.0.1", 10100);
  EXPECT_EQ(t.waitMs("10.0.0.1", 10100), 100u); // starts over
}

TEST(AuthThrottle, AQuietPeriodForgetsFailures) {
  AuthThrottle t(policy());
  uint64_t now = 10000;
  for (int i = 0; i < 4; ++i)
    t.recordFailure("h", now);
  EXPECT_EQ(t.waitMs("h", now), 800u);
  now += 800 + 2 * 1000 + 1; // twice the cap after the wait ended
  t.recordFailure("h", now);
  EXPECT_EQ(t.waitMs("h", now), 100u);
}

TEST(AuthThrottle, ManyHostsStayBounded) {
  AuthThrottle t(policy());
  for (int i = 0; i < 10000; ++i)
    t.recordFailure("host" + std::to_string(i), 10000);
  // The latest failures are remembered; the memory does not grow with
  // every address an attacker uses.
  EXPECT_EQ(t.waitMs("host9999", 10000), 100u);
  EXPECT_LE(t.hostsRemembered(), 4096u);
}

} // namespace
