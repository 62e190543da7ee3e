// Where one round trip's time goes on the server, for the most recent round
// trips of a session: the steady state of a decode loop, which totals over
// a whole session (model load included) cannot show. See docs/server.md,
// "Metrics".
#ifndef RC_SERVER_ROUND_TRIP_LOG_H
#define RC_SERVER_ROUND_TRIP_LOG_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace rc::server {

// One batch the client waited for, in nanoseconds.
struct RoundTripSample {
  uint64_t gapNs = 0;      // previous reply sent -> this batch received
  uint64_t replayNs = 0;   // replaying the batch (read-backs included)
  uint64_t readbackNs = 0; // of which device-to-host copies (GPU wait too)
  uint64_t uploadNs = 0;   // of which host-to-device copies
  uint64_t launchNs = 0;   // of which kernel and graph launches
  uint64_t syncNs = 0;     // of which stream syncs, deferred ones included
  uint64_t buildNs = 0;    // building the reply
  uint64_t sendNs = 0;     // sending it
};

// The last kCapacity samples. Written by the session's thread once per
// round trip, read by the metrics writer: a plain mutex is cheap at that
// rate.
class RoundTripLog {
public:
  static constexpr size_t kCapacity = 1024;

  void add(const RoundTripSample &s);

  struct Summary {
    size_t count = 0;       // samples summarized (<= kCapacity)
    RoundTripSample median; // each field's own median
    RoundTripSample p90;    // each field's 90th percentile
  };
  Summary summary() const;

private:
  mutable std::mutex mutex_;
  std::array<RoundTripSample, kCapacity> ring_{};
  size_t added_ = 0;
};

} // namespace rc::server

#endif
