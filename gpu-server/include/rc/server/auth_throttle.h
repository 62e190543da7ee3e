// Slows down key guessing: after a failed authentication, the failing host
// waits before its next attempt is even looked at, and so, for a shorter
// time, does everyone. Each failure doubles the wait up to a cap; a quiet
// period (twice the cap without failures) or a success forgets them.
// Attempts made while waiting are refused at once with the time left, so
// nothing sleeps and no other client's handshake or session waits.
// Shared by every session of a server; thread-safe.
#ifndef RC_SERVER_AUTH_THROTTLE_H
#define RC_SERVER_AUTH_THROTTLE_H

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace rc::server {

class AuthThrottle {
public:
  struct Policy {
    // A host's wait after its first failure, and the most it grows to.
    uint64_t hostFirstMs = 250, hostCapMs = 10000;
    // Everyone's wait after any failure: bounds the guesses of many hosts
    // together, short enough that honest clients barely notice it.
    uint64_t globalFirstMs = 10, globalCapMs = 1000;
  };
  AuthThrottle() : AuthThrottle(Policy{}) {}
  explicit AuthThrottle(Policy policy) : policy_(policy) {}

  // How long `host` must still wait before an attempt is checked (0: now).
  uint64_t waitMs(const std::string &host, uint64_t nowMs) const;
  void recordFailure(const std::string &host, uint64_t nowMs);
  void recordSuccess(const std::string &host);

  // Milliseconds of a monotonic clock, for the calls above.
  static uint64_t nowMs();
  // Hosts with failures on record (bounded, however many hosts fail).
  size_t hostsRemembered() const;

private:
  struct Backoff {
    uint32_t failures = 0;
    uint64_t untilMs = 0; // no attempt is checked before this time
  };
  static void fail(Backoff &b, uint64_t firstMs, uint64_t capMs,
                   uint64_t nowMs);

  Policy policy_;
  mutable std::mutex mutex_;
  std::map<std::string, Backoff> hosts_;
  Backoff global_;
};

} // namespace rc::server

#endif
