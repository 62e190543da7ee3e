// AuthThrottle: failures count against their source and the key id they
// named, each on its own; the wait doubles up to a cap and a quiet period
// forgets it; neither table grows without bound. Times are given, so
// nothing here sleeps. (That a right proof gets in whatever the throttle
// says: auth_session_test, auth_cli_test.)
#include "rc/server/auth_throttle.h"

#include <gtest/gtest.h>

using rc::server::AuthThrottle;

namespace {

AuthThrottle::Policy policy() {
  AuthThrottle::Policy p;
  p.firstMs = 100;
  p.capMs = 1000;
  return p;
}

TEST(AuthThrottle, NoFailuresNoWait) {
  AuthThrottle t(policy());
  EXPECT_EQ(t.waitMs("10.0.0.1", "team-a", 5000), 0u);
}

TEST(AuthThrottle, TheWaitDoublesUpToTheCap) {
  AuthThrottle t(policy());
  uint64_t now = 10000;
  uint64_t expected[] = {100, 200, 400, 800, 1000, 1000};
  for (uint64_t wait : expected) {
    t.recordFailure("10.0.0.1", "team-a", now);
    EXPECT_EQ(t.waitMs("10.0.0.1", "team-a", now), wait);
    EXPECT_EQ(t.waitMs("10.0.0.1", "team-a", now + wait), 0u);
    now += wait; // the next attempt comes as soon as it may
  }
}

TEST(AuthThrottle, SourcesAndKeyIdsCountApart) {
  AuthThrottle t(policy());
  for (int i = 0; i < 5; ++i)
    t.recordFailure("10.0.0.1", "team-a", 10000);
  EXPECT_EQ(t.waitMs("10.0.0.1", "team-b", 10000), 1000u); // its source
  EXPECT_EQ(t.waitMs("10.0.0.2", "team-a", 10000), 1000u); // its key id
  EXPECT_EQ(t.waitMs("10.0.0.2", "team-b", 10000), 0u);    // neither: none
  EXPECT_EQ(t.waitMs("uid 1000 on this host", "team-b", 10000), 0u);
}

TEST(AuthThrottle, AQuietPeriodForgetsFailures) {
  AuthThrottle t(policy());
  uint64_t now = 10000;
  for (int i = 0; i < 4; ++i)
    t.recordFailure("h", "k", now);
  EXPECT_EQ(t.waitMs("h", "k", now), 800u);
  now += 800 + 2 * 1000 + 1; // twice the cap after the wait ended
  t.recordFailure("h", "k", now);
  EXPECT_EQ(t.waitMs("h", "k", now), 100u);
}

TEST(AuthThrottle, ManySourcesAndKeyIdsStayBounded) {
  AuthThrottle t(policy());
  for (int i = 0; i < 10000; ++i)
    t.recordFailure("host" + std::to_string(i), "key" + std::to_string(i),
                    10000 + uint64_t(i));
  // The latest failures are remembered; the memory does not grow with
  // every address or key id an attacker uses.
  EXPECT_EQ(t.waitMs("host9999", "none", 19999), 100u);
  EXPECT_EQ(t.waitMs("none", "key9999", 19999), 100u);
  EXPECT_LE(t.sourcesRemembered(), 4096u);
  EXPECT_LE(t.keyIdsRemembered(), 4096u);
}

} // namespace
