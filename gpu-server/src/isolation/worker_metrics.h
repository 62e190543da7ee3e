// The metrics file of a supervisor (--isolation process with --metrics,
// docs/server.md "Metrics"): each worker sends its session's counters
// about once a second and once more when the session ends ("metrics JSON"
// on its channel); this keeps the latest of each and lists them as one
// rc-server's file would. A session whose worker ended before its last
// word (a crash) is listed closed, with how the worker ended.
//
// With --metrics-listen each worker also sends its totals (WorkerReport,
// as often); this sums the latest of the live workers and the last of
// every ended one, so the supervisor's counters never go down when a
// worker ends, whether it said goodbye or was killed.
#ifndef RC_SERVER_WORKER_METRICS_H
#define RC_SERVER_WORKER_METRICS_H

#include "isolation/worker_channel.h"
#include "rc/server/metrics_board.h"

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <sys/types.h>

namespace rc::server {

class WorkerMetrics : public MetricsSource {
public:
  // `session`: one session's JSON object, as the worker's board renders it.
  void update(pid_t worker, const std::string &session);
  // `worker`'s totals now (parseTotalsMessage's), replacing its last.
  void report(pid_t worker, const WorkerReport &report);
  // The worker ended (`how`: "exit status 0", "signal 9 (Killed)");
  // `served`: a client's session had opened on it. Its last report stays
  // in the sums; a session it opened and did not report closed counts as
  // closed with "worker_ended", one it never reported at all as opened
  // and closed so.
  void ended(pid_t worker, const std::string &how, bool served);
  // Every worker's totals summed, ended ones included; deviceBytes of the
  // live ones only.
  WorkerReport sums() const;

  size_t liveCount() const override;
  uint64_t changeCount() const override;
  std::string json() const override;

private:
  void closeLocked(std::string session);

  using Clock = std::chrono::steady_clock;
  mutable std::mutex mutex_;
  std::map<pid_t, std::string> live_;
  std::map<pid_t, WorkerReport> reports_; // of live workers
  WorkerReport endedSums_;                // of ended ones
  std::deque<std::string> closed_; // the newest MetricsBoard::kClosedKept
  uint64_t closedTotal_ = 0;
  uint64_t changes_ = 0;
  Clock::time_point started_ = Clock::now();
};

} // namespace rc::server

#endif
