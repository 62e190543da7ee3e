#include "rc/server/metrics_board.h"

#include "metrics/metrics_json.h"
#include "rc/server/content_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace rc::server {

void SessionTotals::add(const SessionMetrics &m) {
  batches += m.batches.get();
  failedBatches += m.failedBatches.get();
  bytesIn += m.bytesIn.get();
  bytesOut += m.bytesOut.get();
  bytesOutRma += m.bytesOutRma.get();
  bytesOutShared += m.bytesOutShared.get();
  bytesInShared += m.bytesInShared.get();
  bytesInCached += m.bytesInCached.get();
  for (size_t t = 0; t < kCommandTypeCount; ++t) {
    commands[t] += m.commandCount[t].get();
    commandNs[t] += m.commandNs[t].get();
    for (size_t b = 0; b < kDurationBucketCount; ++b)
      commandBuckets[t][b] += m.commandBuckets[t][b].get();
  }
}

void SessionTotals::add(const SessionTotals &o) {
  opened += o.opened;
  for (const auto &[reason, n] : o.closedByReason)
    closedByReason[reason] += n;
  batches += o.batches;
  failedBatches += o.failedBatches;
  bytesIn += o.bytesIn;
  bytesOut += o.bytesOut;
  bytesOutRma += o.bytesOutRma;
  bytesOutShared += o.bytesOutShared;
  bytesInShared += o.bytesInShared;
  bytesInCached += o.bytesInCached;
  for (size_t t = 0; t < kCommandTypeCount; ++t) {
    commands[t] += o.commands[t];
    commandNs[t] += o.commandNs[t];
    for (size_t b = 0; b < kDurationBucketCount; ++b)
      commandBuckets[t][b] += o.commandBuckets[t][b];
  }
}

std::string closeReasonLabel(const std::string &reason) {
  static const std::pair<const char *, const char *> kKinds[] = {
      {"goodbye", "goodbye"},
      {"handshake refused", "refused"},
      {"handshake not completed", "handshake_timeout"},
      {"server shutting down", "shutdown"},
      {"client disconnected", "disconnected"},
      {"client gone", "client_gone"},
      {"transport error", "transport_error"},
      {"cannot send reply", "transport_error"},
      {"its worker process ended", "worker_ended"}};
  for (const auto &[prefix, label] : kKinds)
    if (reason.rfind(prefix, 0) == 0)
      return label;
  return "other";
}

void MetricsBoard::open(uint64_t id,
                        std::shared_ptr<const SessionMetrics> metrics) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++closedTotals_.opened;
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
  closedTotals_.add(*e.metrics);
  ++closedTotals_.closedByReason[closeReasonLabel(reason)];
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

std::string metricsDocument(double uptimeSeconds, size_t live,
                            uint64_t closedTotal, const std::string &sessions,
                            const std::string &server) {
  char head[200];
  std::snprintf(head, sizeof head,
                "{\"server_pid\":%d,\"uptime_s\":%.3f,\"live_sessions\":%zu,"
                "\"closed_sessions\":%llu,\n",
                int(getpid()), uptimeSeconds, live,
                static_cast<unsigned long long>(closedTotal));
  return head + server + "\"sessions\":[" + sessions + "]}\n";
}

std::string MetricsBoard::render(const Entry &e, Clock::time_point now) {
  SessionHeader h;
  h.id = e.id;
  h.live = e.live;
  h.seconds = h.live ? std::chrono::duration<double>(now - e.opened).count()
                     : e.seconds;
  h.closeReason = e.closeReason;
  std::string out;
  appendSessionJson(out, h, *e.metrics);
  return out;
}

std::string MetricsBoard::sessionsJson(size_t *live,
                                       uint64_t *closedTotal) const {
  // Copy the list under the lock; the counters are read without it.
  std::vector<Entry> entries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &kv : live_)
      entries.push_back(kv.second);
    entries.insert(entries.end(), closed_.begin(), closed_.end());
    if (live)
      *live = live_.size();
    if (closedTotal)
      *closedTotal = closedTotal_;
  }
  auto now = Clock::now();
  std::string sessions;
  sessions.reserve(entries.size() * 1024);
  for (const Entry &e : entries)
    sessions += (sessions.empty() ? "" : ",\n") + render(e, now);
  return sessions;
}

SessionTotals MetricsBoard::totals() const {
  std::vector<std::shared_ptr<const SessionMetrics>> live;
  SessionTotals totals;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    totals = closedTotals_;
    for (const auto &kv : live_)
      live.push_back(kv.second.metrics);
  }
  for (const auto &m : live)
    totals.add(*m);
  return totals;
}

std::string MetricsBoard::sessionJson(uint64_t id) const {
  Entry entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(id);
    if (it != live_.end()) {
      entry = it->second;
    } else {
      auto closed = std::find_if(closed_.begin(), closed_.end(),
                                 [id](const Entry &e) { return e.id == id; });
      if (closed == closed_.end())
        return "";
      entry = *closed;
    }
  }
  return render(entry, Clock::now());
}

std::string MetricsBoard::json() const {
  size_t live = 0;
  uint64_t closedTotal = 0;
  std::string sessions = sessionsJson(&live, &closedTotal);
  std::string server;
  if (cache_)
    appendContentCacheJson(server, cache_->stats());
  return metricsDocument(
      std::chrono::duration<double>(Clock::now() - started_).count(), live,
      closedTotal, sessions, server);
}

} // namespace rc::server
