// Remembers failed authentications, by where they came from (the peer's
// source, peer_source.h) and by the key id they named, so that a guesser
// is told to back off while nobody else is: every failure doubles its
// source's and its key id's wait, up to a cap; a quiet period (twice the
// cap without failures) forgets them. A right proof is always accepted,
// whatever the wait (HelloAuth checks it first), so no stranger's failures
// ever lock out a key holder, even one on the same host under the same
// key id; the wait only turns the failing peer's next wrong answers into
// "retry in N ms" and keeps them out of the log. Keys are 256-bit random
// numbers: no rate of online guessing finds one (docs/security.md,
// "Failed attempts"). Both tables are bounded, however many sources and
// key ids an attacker uses. Shared by every session of a server;
// thread-safe.
#ifndef RC_SERVER_AUTH_THROTTLE_H
#define RC_SERVER_AUTH_THROTTLE_H

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace rc::server {

class AuthThrottle {
public:
  struct Policy {
    // The wait after a first failure, and the most it grows to.
    uint64_t firstMs = 250, capMs = 10000;
    // Sources, and key ids, remembered at most (each).
    size_t maxRemembered = 4096;
  };
  AuthThrottle() : AuthThrottle(Policy{}) {}
  explicit AuthThrottle(Policy policy)
      : policy_(policy), sources_(policy_), keyIds_(policy_) {}

  // How long failures from `source` or naming `keyId` still count (0:
  // none lately).
  uint64_t waitMs(const std::string &source, const std::string &keyId,
                  uint64_t nowMs) const;
  void recordFailure(const std::string &source, const std::string &keyId,
                     uint64_t nowMs);

  // Milliseconds of a monotonic clock, for the calls above.
  static uint64_t nowMs();
  size_t sourcesRemembered() const { return sources_.size(); }
  size_t keyIdsRemembered() const { return keyIds_.size(); }
  // Every failure recorded since start (rc_server_auth_failures_total).
  uint64_t failures() const { return failures_; }

private:
  // Failures by name, at most policy.maxRemembered names: forgotten ones
  // (quiet for twice the cap) go first, then those whose wait ends first.
  class Table {
  public:
    explicit Table(const Policy &policy) : policy_(policy) {}
    uint64_t untilMs(const std::string &name) const;
    void fail(const std::string &name, uint64_t nowMs);
    size_t size() const;

  private:
    struct Backoff {
      uint32_t failures = 0;
      uint64_t untilMs = 0; // failures count until this time
    };
    void makeRoom(uint64_t nowMs);
    const Policy &policy_;
    mutable std::mutex mutex_;
    std::map<std::string, Backoff> entries_;
  };

  Policy policy_;
  Table sources_, keyIds_;
  std::atomic<uint64_t> failures_{0};
};

} // namespace rc::server

#endif
