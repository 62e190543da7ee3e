// Helpers shared by the transport's tests: time, listen URLs for either
// provider, message contents, threads that are always joined.
#ifndef RC_TRANSPORT_TEST_UTIL_H
#define RC_TRANSPORT_TEST_UTIL_H

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

// tcp: port 0 (the listener reports the real one); shm: a name of this
// process that no other test uses.
inline std::string listenUrl(const std::string &scheme) {
  static std::atomic<int> counter{0};
  if (scheme == "tcp")
    return "tcp://127.0.0.1:0";
  return "shm://rctest_" + std::to_string(getpid()) + "_" +
         std::to_string(counter++);
}

// `size` bytes that differ for every seed.
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
