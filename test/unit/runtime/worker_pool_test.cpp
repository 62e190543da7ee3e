// The client's bulk threads (core/worker_pool.h): every item runs exactly
// once, a waiter sees its item's effects, and a job finishes even when the
// helpers are busy or absent.
#include "core/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

using rc::rt::WorkerPool;

TEST(WorkerPool, RunsEveryItemOnceAcrossItsThreads) {
  WorkerPool pool(4);
  std::vector<std::atomic<int>> runs(1000);
  for (int round = 0; round < 20; ++round)
    pool.run(runs.size(), [&](size_t i) { runs[i].fetch_add(1); });
  for (size_t i = 0; i < runs.size(); ++i)
    ASSERT_EQ(runs[i].load(), 20) << i;
}

TEST(WorkerPool, WaitingForOneItemSeesWhatItWrote) {
  WorkerPool pool(3);
  std::vector<uint64_t> out(64, 0);
  auto job = pool.start(out.size(), [&](size_t i) { out[i] = i * i + 1; });
  for (size_t i = 0; i < out.size(); ++i) {
    job->wait(i);
    ASSERT_EQ(out[i], i * i + 1) << i;
  }
  job->waitAll();
}

TEST(WorkerPool, WithoutHelpersTheCallerRunsEverything) {
  WorkerPool pool(1);
  std::vector<int> out(10, 0);
  auto job = pool.start(out.size(), [&](size_t i) { out[i] = 1; });
  job->waitAll();
  EXPECT_EQ(std::accumulate(out.begin(), out.end(), 0), 10);
}

// A long job ahead in the queue holds the helpers: a second job's caller
// does its own items meanwhile instead of waiting for them.
TEST(WorkerPool, ACallerFinishesItsJobWhileHelpersAreBusy) {
  WorkerPool pool(2);
  std::atomic<bool> release{false};
  auto blocker = pool.start(2, [&](size_t) {
    while (!release.load())
      std::this_thread::yield();
  });
  // The helper takes one blocking item; this thread must not wait for it.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::vector<int> out(8, 0);
  pool.run(out.size(), [&](size_t i) { out[i] = int(i); });
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], int(i));
  release = true;
  blocker->waitAll();
}
