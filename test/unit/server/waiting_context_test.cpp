// WaitingContext: a session context made ahead, made again after each take
// (rc/server/waiting_context.h), with the host backend's contexts.
#include "rc/server/waiting_context.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace rc::server {
namespace {

// Polls `done` for up to 5 s.
template <class Done> bool eventually(Done done) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(WaitingContext, OneIsMadeAheadAndTheNextAfterEachTake) {
  std::unique_ptr<Backend> backend = makeHostBackend();
  std::atomic<int> made{0};
  std::atomic<bool> madeOnTheCallersThread{false};
  const std::thread::id caller = std::this_thread::get_id();
  WaitingContext waiting;
  waiting.keepOneReady([&] {
    if (std::this_thread::get_id() == caller)
      madeOnTheCallersThread = true;
    std::string error;
    auto ctx = backend->createContext(0, &error);
    ++made;
    return ctx;
  });
  ASSERT_TRUE(eventually([&] { return made == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(made, 1) << "one waits; no second is made before it is taken";
  std::unique_ptr<DeviceContext> first = waiting.take();
  ASSERT_TRUE(first);
  uint64_t addr = 0;
  EXPECT_TRUE(first->malloc(64, &addr).ok()) << "a usable context";
  EXPECT_TRUE(eventually([&] { return made == 2; }))
      << "the next is made after the take";
  EXPECT_TRUE(waiting.take());
  EXPECT_TRUE(eventually([&] { return made == 3; }));
  EXPECT_FALSE(madeOnTheCallersThread);
  waiting.stop();
  EXPECT_FALSE(waiting.take()) << "stop() drops the waiting context";
}

TEST(WaitingContext, AFailedMakeIsTriedAgainOnlyAfterTheNextTake) {
  std::atomic<int> tries{0};
  WaitingContext waiting;
  waiting.keepOneReady([&]() -> std::unique_ptr<DeviceContext> {
    ++tries;
    return nullptr; // e.g. a full GPU
  });
  ASSERT_TRUE(eventually([&] { return tries == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(tries, 1) << "no retry loop while nobody takes";
  EXPECT_FALSE(waiting.take()) << "the session makes its own";
  EXPECT_TRUE(eventually([&] { return tries == 2; }));
}

TEST(WaitingContext, APutContextIsTakenOnce) {
  std::unique_ptr<Backend> backend = makeHostBackend();
  std::string error;
  WaitingContext waiting;
  waiting.put(backend->createContext(0, &error));
  EXPECT_TRUE(waiting.take());
  EXPECT_FALSE(waiting.take()) << "nothing makes another without keepOneReady";
}

} // namespace
} // namespace rc::server
