// sleepPrecisely lowers the thread's timer slack to 1 us while it sleeps,
// and only then: the thread belongs to the application, whose own timers
// must keep the slack it chose. The slack during the sleep is read on the
// sleeping thread itself, by a signal handler that another thread's
// signals run there (the sleep resumes after each). How much later a sleep
// ends is timing, not asserted here.
#include "precise_sleep.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <thread>

using rc::transport::detail::sleepPrecisely;

namespace {

// The smallest and largest slack the sleeping thread had when a signal
// reached it.
std::atomic<long> lowestSlack{LONG_MAX}, highestSlack{0};
std::atomic<int> samples{0};

void sampleSlack(int) {
  long slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0); // a syscall: safe here
  long seen = lowestSlack.load();
  while (slack < seen && !lowestSlack.compare_exchange_weak(seen, slack)) {
  }
  seen = highestSlack.load();
  while (slack > seen && !highestSlack.compare_exchange_weak(seen, slack)) {
  }
  samples.fetch_add(1);
}

// Sets the thread's slack to `slack`, sleeps precisely for 200 ms while
// another thread signals this one every 5 ms, restores the original slack.
// Returns the slack after the sleep.
long sleepWhileSampled(long slack) {
  lowestSlack = LONG_MAX;
  highestSlack = 0;
  samples = 0;
  struct sigaction sa = {}, old = {};
  sa.sa_handler = sampleSlack;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  EXPECT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  long original = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  EXPECT_EQ(prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0), 0);
  std::atomic<bool> sleeping{true};
  pthread_t sleeper = pthread_self();
  std::thread sampler([&] {
    while (sleeping) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (sleeping)
        pthread_kill(sleeper, SIGUSR1);
    }
  });
  sleepPrecisely(std::chrono::milliseconds(200));
  sleeping = false;
  long after = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  sampler.join();
  prctl(PR_SET_TIMERSLACK, original, 0, 0, 0);
  sigaction(SIGUSR1, &old, nullptr);
  return after;
}

TEST(PreciseSleep, LowersTheSlackWhileItSleepsAndRestoresIt) {
  long after = sleepWhileSampled(70000);
  ASSERT_GT(samples.load(), 0) << "no signal reached the sleeping thread";
  EXPECT_EQ(lowestSlack.load(), 1000) << "the slack was never lowered";
  EXPECT_EQ(after, 70000) << "the application's slack was not restored";
}

TEST(PreciseSleep, LeavesASmallerSlackAlone) {
  long after = sleepWhileSampled(500);
  ASSERT_GT(samples.load(), 0) << "no signal reached the sleeping thread";
  EXPECT_EQ(lowestSlack.load(), 500);
  EXPECT_EQ(highestSlack.load(), 500);
  EXPECT_EQ(after, 500);
}

} // namespace
