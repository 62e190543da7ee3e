// The sessions rc-server's metrics file lists: every live one and the most
// recent closed ones, with their counters (session_metrics.h). Sessions
// register once when they start and once when they end; the replay path
// never touches the board.
#ifndef RC_SERVER_METRICS_BOARD_H
#define RC_SERVER_METRICS_BOARD_H

#include "rc/server/session_metrics.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace rc::server {

class MetricsBoard {
public:
  // Closed sessions listed, newest last; older ones only count in
  // closed_sessions (a server that runs for weeks must not grow the file).
  static constexpr size_t kClosedKept = 100;

  void open(uint64_t id, std::shared_ptr<const SessionMetrics> metrics);
  void close(uint64_t id, const std::string &reason);

  size_t liveCount() const;
  // Changes with every open and close: the writer rewrites the file when
  // this moved even if no session is live any more.
  uint64_t changeCount() const;

  // The metrics file's JSON document (docs/server.md, "Metrics").
  std::string json() const;

private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    uint64_t id = 0;
    std::shared_ptr<const SessionMetrics> metrics;
    Clock::time_point opened;
    bool live = true;
    double seconds = 0; // how long it was open, once closed
    std::string closeReason;
  };

  mutable std::mutex mutex_;
  std::map<uint64_t, Entry> live_;
  std::deque<Entry> closed_;
  uint64_t closedTotal_ = 0;
  uint64_t changes_ = 0;
  Clock::time_point started_ = Clock::now();
};

} // namespace rc::server

#endif
