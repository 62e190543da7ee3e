// Where one session's server time goes: counters a session's thread bumps
// while it replays, and that the metrics file writer (another thread) reads
// at any moment. See docs/server.md, "Metrics".
#ifndef RC_SERVER_SESSION_METRICS_H
#define RC_SERVER_SESSION_METRICS_H

#include "protocol_generated.h"
#include "rc/server/round_trip_log.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace rc::server {

// A counter with exactly one writing thread. The write is a relaxed load
// plus a relaxed store, i.e. plain moves on x86: no locked read-modify-write
// on the replay path, yet a concurrent reader never sees a torn value.
class MetricCounter {
public:
  void add(uint64_t n) {
    value_.store(value_.load(std::memory_order_relaxed) + n,
                 std::memory_order_relaxed);
  }
  // Keeps the larger of the value and n (a maximum).
  void raise(uint64_t n) {
    if (n > value_.load(std::memory_order_relaxed))
      value_.store(n, std::memory_order_relaxed);
  }
  uint64_t get() const { return value_.load(std::memory_order_relaxed); }

private:
  std::atomic<uint64_t> value_{0};
};

// Every wire::Command value indexes the per-type arrays (NONE included, for
// empty entries), so a command type added to protocol.fbs is counted too.
constexpr size_t kCommandTypeCount = size_t(wire::Command::MAX) + 1;

// The upper bounds of rc_server_command_duration_seconds' buckets, in
// nanoseconds (docs/metrics.md): from a queued launch (~1 us) to a long
// synchronize. A command slower than the last lands in the +Inf bucket.
constexpr std::array<uint64_t, 12> kDurationBucketNs = {
    1000,    5000,     25000,     100000,    500000,     1000000,
    5000000, 25000000, 100000000, 500000000, 1000000000, 5000000000};
constexpr size_t kDurationBucketCount = kDurationBucketNs.size() + 1;

// The bucket a command of `ns` nanoseconds is counted in.
inline size_t durationBucket(uint64_t ns) {
  size_t i = 0;
  while (i < kDurationBucketNs.size() && ns > kDurationBucketNs[i])
    ++i;
  return i;
}

inline uint64_t monotonicNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

struct SessionMetrics {
  MetricCounter batches;        // Batch messages replayed (after Hello)
  MetricCounter failedBatches;  // of which stopped at a failing command
  MetricCounter bytesIn;        // every received message, Hello included
  MetricCounter replies;        // messages sent back (HelloReply included)
  MetricCounter bytesOut;       // their bytes
  MetricCounter bytesOutRma;    // read-back bytes written by RMA instead
  MetricCounter bytesOutShared; // read back straight into shared host memory
  MetricCounter bytesInShared;  // uploaded straight from shared host memory
  MetricCounter bytesInCached;  // uploaded from the content cache, not sent
  MetricCounter replayNs;       // inside Executor::run, per batch
  MetricCounter replyNs;        // building BatchReplies + sending all replies
  MetricCounter deferredSyncNs; // waiting for deferred stream syncs
  MetricCounter syncFences;     // streams ordered behind one on the GPU instead
  std::array<MetricCounter, kCommandTypeCount> commandCount;
  std::array<MetricCounter, kCommandTypeCount> commandNs;
  // The slowest of each type: a one-off (a library's first call, a lazy
  // module load) that would hide the steady cost in the mean.
  std::array<MetricCounter, kCommandTypeCount> commandMaxNs;
  // Each type's commands by duration (kDurationBucketNs; not cumulative:
  // the exposition sums them).
  std::array<std::array<MetricCounter, kDurationBucketCount>, kCommandTypeCount>
      commandBuckets;
  RoundTripLog recentRoundTrips; // batches the client waited for

  // Who the client is; set once from Hello (strings need the lock, since
  // the writer may read them meanwhile).
  void identify(uint32_t pid, const std::string &name);
  uint32_t clientPid() const;
  std::string clientName() const;
  // The key id the client proved (docs/server-isolation.md, "Tenants and
  // quotas");
  // "" without authentication.
  void setTenant(const std::string &tenant);
  std::string tenant() const;

private:
  mutable std::mutex identityMutex_;
  uint32_t pid_ = 0;
  std::string name_;
  std::string tenant_;
};

// Adds the time from construction to destruction to one command type.
// Without metrics (an Executor used on its own) it reads no clock.
class CommandTimer {
public:
  CommandTimer(SessionMetrics *metrics, wire::Command type)
      : metrics_(metrics), type_(size_t(type)),
        start_(metrics ? monotonicNs() : 0) {}
  ~CommandTimer() {
    if (!metrics_ || type_ >= kCommandTypeCount)
      return;
    uint64_t ns = monotonicNs() - start_;
    metrics_->commandCount[type_].add(1);
    metrics_->commandNs[type_].add(ns);
    metrics_->commandMaxNs[type_].raise(ns);
    metrics_->commandBuckets[type_][durationBucket(ns)].add(1);
  }
  CommandTimer(const CommandTimer &) = delete;
  CommandTimer &operator=(const CommandTimer &) = delete;

private:
  SessionMetrics *metrics_;
  size_t type_;
  uint64_t start_;
};

} // namespace rc::server

#endif
