// The runtime's exit handler never waits forever for the runtime lock.
// exit() may run inside a signal handler that interrupted the thread that
// holds it (an application's handler that calls exit()), or while another
// thread is inside a call; the exit handler then gives up after
// Runtime::kExitLockWait and sends nothing.
#include "fake_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

using namespace rc::test;
using Clock = std::chrono::steady_clock;

namespace {

// A connection to the fake server that runs `onRecv` once, inside the
// runtime's wait for a reply: where a signal lands while a call holds the
// runtime lock.
class InterruptedConnection : public FakeConnection {
public:
  using FakeConnection::FakeConnection;
  std::function<void()> onRecv;
  rc::transport::Status recv(std::vector<uint8_t> &message,
                             int timeoutMs) override {
    if (auto interrupt = std::exchange(onRecv, nullptr))
      interrupt();
    return FakeConnection::recv(message, timeoutMs);
  }
};

class RuntimeExit : public testing::Test {
protected:
  void SetUp() override {
    rc::rt::Options opts = quietOptions();
    opts.flusherThread = true; // as in an application: stopped at exit too
    rt = std::make_unique<rc::rt::Runtime>(
        [this](int, std::string *) {
          auto c = std::make_unique<InterruptedConnection>(state);
          conn = c.get();
          return std::unique_ptr<rc::transport::Connection>(std::move(c));
        },
        nullptr, opts);
    ASSERT_EQ(rt->malloc(&d, 64), cudaSuccess);
  }
  // A synchronous read-back: the call waits for its reply.
  cudaError_t readBack() {
    return rt->memcpy(back, d, sizeof back, cudaMemcpyDeviceToHost, nullptr,
                      false, false);
  }
  bool saidGoodbye() {
    std::lock_guard<std::mutex> l(state->mu);
    for (rc::wire::Command c : state->commands)
      if (c == rc::wire::Command::Goodbye)
        return true;
    return false;
  }

  std::shared_ptr<FakeState> state = std::make_shared<FakeState>();
  std::unique_ptr<rc::rt::Runtime> rt;
  InterruptedConnection *conn = nullptr;
  void *d = nullptr;
  uint8_t back[64];
};

TEST_F(RuntimeExit, OnTheThreadThatHoldsTheLockItGivesUp) {
  bool shutDown = true;
  Clock::duration took{};
  conn->onRecv = [&] { // a handler calling exit() during the read-back
    auto start = Clock::now();
    rc::rt::TrafficStats stats;
    shutDown = rt->shutdownAtExit(&stats);
    took = Clock::now() - start;
  };
  ASSERT_EQ(readBack(), cudaSuccess);
  EXPECT_FALSE(shutDown);
  EXPECT_GE(took, rc::rt::Runtime::kExitLockWait);
  EXPECT_LT(took, rc::rt::Runtime::kExitLockWait + std::chrono::seconds(1));
  EXPECT_FALSE(saidGoodbye());
}

TEST_F(RuntimeExit, WhileAnotherThreadIsInACallItGivesUp) {
  std::promise<void> inside, release;
  conn->onRecv = [&] {
    inside.set_value();
    release.get_future().wait();
  };
  std::thread caller([&] { EXPECT_EQ(readBack(), cudaSuccess); });
  inside.get_future().wait();
  auto start = Clock::now();
  rc::rt::TrafficStats stats;
  EXPECT_FALSE(rt->shutdownAtExit(&stats));
  EXPECT_LT(Clock::now() - start,
            rc::rt::Runtime::kExitLockWait + std::chrono::seconds(1));
  release.set_value();
  caller.join();
  EXPECT_FALSE(saidGoodbye());
}

TEST_F(RuntimeExit, WithTheLockFreeItSaysGoodbye) {
  ASSERT_EQ(readBack(), cudaSuccess);
  rc::rt::TrafficStats stats;
  EXPECT_TRUE(rt->shutdownAtExit(&stats));
  EXPECT_TRUE(saidGoodbye());
  EXPECT_GT(stats.messages, 0u);
}

} // namespace
