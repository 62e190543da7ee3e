// Helpers shared by the transport's test files: listen URLs, a listener per
// provider, content patterns, and a thread that is always joined.
#ifndef RC_TRANSPORT_TEST_SUPPORT_H
#define RC_TRANSPORT_TEST_SUPPORT_H

#include "rc/transport.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace rc::transport::test {

using Clock = std::chrono::steady_clock;

inline long msSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t)
      .count();
}

inline std::string listenUrl(const std::string &scheme) {
  static std::atomic<int> counter{0};
  if (scheme == "tcp")
    return "tcp://127.0.0.1:0"; // listener reports the real port
  return "shm://rctest_" + std::to_string(getpid()) + "_" +
         std::to_string(counter++);
}

// A fresh listener of the provider the test is instantiated with ("tcp",
// "shm").
class ProviderTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    std::string err;
    listener_ = listen(listenUrl(GetParam()), &err);
    ASSERT_TRUE(listener_) << err;
  }
  std::unique_ptr<Listener> listener_;
};

// Bytes that differ with `seed` and along the buffer.
inline std::vector<uint8_t> pattern(size_t size, uint32_t seed) {
  std::vector<uint8_t> v(size);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < size; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

// A thread that is always joined, also when an ASSERT leaves the test body
// early (a joinable std::thread would abort the whole run).
struct Joiner {
  template <class F> explicit Joiner(F f) : t(std::move(f)) {}
  ~Joiner() { join(); }
  void join() {
    if (t.joinable())
      t.join();
  }
  std::thread t;
};

} // namespace rc::transport::test

#endif
