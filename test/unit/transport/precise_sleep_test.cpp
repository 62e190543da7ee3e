// sleepPrecisely lowers the thread's timer slack only while it sleeps: the
// thread belongs to the application, whose own timers must keep the slack
// it chose. (How much later a sleep ends is timing, not asserted here.)
#include "precise_sleep.h"

#include <gtest/gtest.h>

#include <sys/prctl.h>

using rc::transport::detail::sleepPrecisely;

TEST(PreciseSleep, RestoresTheThreadsTimerSlack) {
  int original = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  ASSERT_EQ(prctl(PR_SET_TIMERSLACK, 70000, 0, 0, 0), 0);
  sleepPrecisely(std::chrono::microseconds(20));
  EXPECT_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 70000);
  prctl(PR_SET_TIMERSLACK, original, 0, 0, 0);
}

TEST(PreciseSleep, LeavesASmallerSlackAlone) {
  int original = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  ASSERT_EQ(prctl(PR_SET_TIMERSLACK, 500, 0, 0, 0), 0);
  sleepPrecisely(std::chrono::microseconds(20));
  EXPECT_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 500);
  prctl(PR_SET_TIMERSLACK, original, 0, 0, 0);
}
