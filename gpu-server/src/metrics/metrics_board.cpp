#include "rc/server/metrics_board.h"
#include "metrics/metrics_json.h"

#include <unistd.h>

#include <cstdio>
#include <vector>

namespace rc::server {

void MetricsBoard::open(uint64_t id,
                        std::shared_ptr<const SessionMetrics> metrics) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry &e = live_[id];
  e.id = id;
  e.metrics = std::move(metrics);
  e.opened = Clock::now();
  ++changes_;
}

void MetricsBoard::close(uint64_t id, const std::string &reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(id);
  if (it == live_.end())
    return;
  Entry e = std::move(it->second);
  live_.erase(it);
  e.live = false;
  e.seconds = std::chrono::duration<double>(Clock::now() - e.opened).count();
  e.closeReason = reason;
  closed_.push_back(std::move(e));
  if (closed_.size() > kClosedKept)
    closed_.pop_front();
  ++closedTotal_;
  ++changes_;
}

size_t MetricsBoard::liveCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_.size();
}

uint64_t MetricsBoard::changeCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return changes_;
}

std::string MetricsBoard::json() const {
  // Copy the list under the lock; the counters are read without it.
  std::vector<Entry> entries;
  uint64_t closedTotal;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &kv : live_)
      entries.push_back(kv.second);
    entries.insert(entries.end(), closed_.begin(), closed_.end());
    closedTotal = closedTotal_;
  }
  auto now = Clock::now();
  size_t live = 0;
  std::string out;
  out.reserve(1024 + entries.size() * 1024);
  char head[160];
  std::snprintf(head, sizeof head, "{\"server_pid\":%d,\"uptime_s\":%.3f,",
                int(getpid()),
                std::chrono::duration<double>(now - started_).count());
  out += head;
  std::string sessions = "\"sessions\":[";
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry &e = entries[i];
    SessionHeader h;
    h.id = e.id;
    h.live = e.live;
    live += h.live;
    h.seconds = h.live ? std::chrono::duration<double>(now - e.opened).count()
                       : e.seconds;
    h.closeReason = e.closeReason;
    if (i)
      sessions += ",\n";
    appendSessionJson(sessions, h, *e.metrics);
  }
  out += "\"live_sessions\":" + std::to_string(live) +
         ",\"closed_sessions\":" + std::to_string(closedTotal) + ",\n";
  out += sessions + "]}\n";
  return out;
}

} // namespace rc::server
