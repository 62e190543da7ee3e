// The sessions rc-server's metrics file lists: every live one and the most
// recent closed ones, with their counters (session_metrics.h). Sessions
// register once when they start and once when they end; the replay path
// never touches the board.
#ifndef RC_SERVER_METRICS_BOARD_H
#define RC_SERVER_METRICS_BOARD_H

#include "rc/server/session_metrics.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace rc::server {

// What rc-server's metrics file is written from (MetricsFileWriter): one
// process's board, or a supervisor's view of its workers' sessions.
class MetricsSource {
public:
  virtual ~MetricsSource() = default;
  virtual size_t liveCount() const = 0;
  // Changes with every open and close: the writer rewrites the file when
  // this moved even if no session is live any more.
  virtual uint64_t changeCount() const = 0;
  // The metrics file's JSON document (docs/server.md, "Metrics").
  virtual std::string json() const = 0;
};

// The header of the metrics file's document around `sessions` (each a
// JSON object of appendSessionJson, comma-joined).
// `server`: members about the whole server put before the sessions (each
// `"name":{...},` with its comma), such as the content cache's counters.
std::string metricsDocument(double uptimeSeconds, size_t live,
                            uint64_t closedTotal, const std::string &sessions,
                            const std::string &server = "");

// Every session's counters summed, closed sessions included: what the
// Prometheus exposition's counters are made of (docs/metrics.md), so they
// never go down when a closed session leaves the board's list.
struct SessionTotals {
  uint64_t opened = 0;
  // Closed sessions by closeReasonLabel of their reason.
  std::map<std::string, uint64_t> closedByReason;
  uint64_t batches = 0, failedBatches = 0;
  uint64_t bytesIn = 0, bytesOut = 0, bytesOutRma = 0, bytesOutShared = 0,
           bytesInShared = 0, bytesInCached = 0;
  std::array<uint64_t, kCommandTypeCount> commands{}, commandNs{};
  std::array<std::array<uint64_t, kDurationBucketCount>, kCommandTypeCount>
      commandBuckets{};

  void add(const SessionMetrics &m);
  // Another's counters (a supervisor sums its workers').
  void add(const SessionTotals &other);
};

// A close reason's kind, a label value from a small fixed set ("goodbye",
// "refused", "handshake_timeout", "shutdown", "disconnected", "client_gone",
// "transport_error", "worker_ended", "other"): the reasons themselves carry
// details (peer addresses, byte counts) that would make a label of every
// session.
std::string closeReasonLabel(const std::string &reason);

class ContentCache;

class MetricsBoard : public MetricsSource {
public:
  // Closed sessions listed, newest last; older ones only count in
  // closed_sessions (a server that runs for weeks must not grow the file).
  static constexpr size_t kClosedKept = 100;

  void open(uint64_t id, std::shared_ptr<const SessionMetrics> metrics);
  void close(uint64_t id, const std::string &reason);

  size_t liveCount() const override;
  uint64_t changeCount() const override;
  std::string json() const override;
  // Only the sessions' objects, comma-joined, with the live and closed
  // counts of that moment.
  std::string sessionsJson(size_t *live = nullptr,
                           uint64_t *closedTotal = nullptr) const;
  // Closed sessions' counters plus the live ones' of this moment.
  SessionTotals totals() const;
  // Session `id`'s object, live or closed; "" if the board has none.
  std::string sessionJson(uint64_t id) const;
  // The content cache whose counters the document carries (rc-server
  // --cache); before the writer starts.
  void showContentCache(const ContentCache *cache) { cache_ = cache; }

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

  static std::string render(const Entry &e, Clock::time_point now);

  mutable std::mutex mutex_;
  std::map<uint64_t, Entry> live_;
  std::deque<Entry> closed_;
  uint64_t closedTotal_ = 0;
  SessionTotals closedTotals_; // every closed session's, summed at close
  uint64_t changes_ = 0;
  Clock::time_point started_ = Clock::now();
  const ContentCache *cache_ = nullptr;
};

} // namespace rc::server

#endif
