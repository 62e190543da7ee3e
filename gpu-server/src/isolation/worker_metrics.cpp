#include "isolation/worker_metrics.h"
#include "metrics/metrics_json.h"

namespace rc::server {

namespace {
const std::string kLive = "\"state\":\"live\"";
const std::string kClosed = "\"state\":\"closed\"";
} // namespace

void WorkerMetrics::update(pid_t worker, const std::string &session) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (session.find(kClosed) != std::string::npos) {
    live_.erase(worker);
    closeLocked(session);
    return;
  }
  auto [it, added] = live_.insert({worker, session});
  if (added)
    ++changes_;
  else
    it->second = session;
}

void WorkerMetrics::report(pid_t worker, const WorkerReport &report) {
  std::lock_guard<std::mutex> lock(mutex_);
  reports_[worker] = report;
}

WorkerReport WorkerMetrics::sums() const {
  std::lock_guard<std::mutex> lock(mutex_);
  WorkerReport sums = endedSums_;
  for (const auto &[pid, r] : reports_) {
    sums.totals.add(r.totals);
    sums.deviceBytes += r.deviceBytes;
    sums.authFailures += r.authFailures;
  }
  return sums;
}

void WorkerMetrics::ended(pid_t worker, const std::string &how, bool served) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto report = reports_.find(worker);
  if (report != reports_.end() || served) {
    WorkerReport last;
    if (report != reports_.end()) {
      last = std::move(report->second);
      reports_.erase(report);
    }
    SessionTotals &t = last.totals;
    if (served && t.opened == 0) // it went before its first report
      t.opened = 1;
    uint64_t closed = 0;
    for (const auto &kv : t.closedByReason)
      closed += kv.second;
    if (t.opened > closed)
      t.closedByReason["worker_ended"] += t.opened - closed;
    endedSums_.totals.add(t);
    endedSums_.authFailures += last.authFailures;
  }
  auto it = live_.find(worker);
  if (it == live_.end())
    return; // it said its session closed, or it never had one
  std::string session = std::move(it->second);
  live_.erase(it);
  std::string reason;
  appendJsonString(reason, "its worker process ended with " + how);
  size_t at = session.find(kLive);
  if (at != std::string::npos)
    session.replace(at, kLive.size(), kClosed + ",\"close_reason\":" + reason);
  closeLocked(std::move(session));
}

void WorkerMetrics::closeLocked(std::string session) {
  closed_.push_back(std::move(session));
  if (closed_.size() > MetricsBoard::kClosedKept)
    closed_.pop_front();
  ++closedTotal_;
  ++changes_;
}

size_t WorkerMetrics::liveCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_.size();
}

uint64_t WorkerMetrics::changeCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return changes_;
}

std::string WorkerMetrics::json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string sessions;
  for (const auto &kv : live_)
    sessions += (sessions.empty() ? "" : ",\n") + kv.second;
  for (const std::string &s : closed_)
    sessions += (sessions.empty() ? "" : ",\n") + s;
  return metricsDocument(
      std::chrono::duration<double>(Clock::now() - started_).count(),
      live_.size(), closedTotal_, sessions);
}

} // namespace rc::server
