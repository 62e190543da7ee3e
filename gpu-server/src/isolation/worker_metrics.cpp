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

void WorkerMetrics::ended(pid_t worker, const std::string &how) {
  std::lock_guard<std::mutex> lock(mutex_);
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
