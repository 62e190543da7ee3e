// The connect path's time (RC_CONNECT_TIMEOUT_MS, from the first attempt):
// a refusal that says it may pass (HelloReply.retry_after_ms: a worker's
// ticket that lapsed, a tenant with all its reservations out) is tried
// again, from the address in RC_SERVER, while the time allows
// (docs/protocol.md, "Refusals worth retrying").
#ifndef RC_RT_CONNECT_DEADLINE_H
#define RC_RT_CONNECT_DEADLINE_H

#include <chrono>
#include <cstdint>

namespace rc::rt {

class ConnectDeadline {
public:
  explicit ConnectDeadline(int timeoutMs);
  // What is left for the next attempt's transport connect (at least 1 ms).
  int leftMs() const;
  // Waits `retryMs` and says whether another attempt may start then;
  // false (at once) when the time would be up.
  bool waitToRetry(uint32_t retryMs);
  int attempts() const { return attempts_; }

private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point end_;
  int attempts_ = 1;
};

} // namespace rc::rt

#endif
