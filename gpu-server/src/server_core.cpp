#include "rc/server/server_core.h"
#include "metrics_file_writer.h"
#include "rc/server/log.h"

#include <chrono>
#include <cstdio>

namespace rc::server {

namespace {
// How often a waiting session checks for shutdown and a vanished peer.
constexpr int kPollMs = 200;

// Sends every reply; counts them and the time it took (building them was
// counted by the session). Sets *reason when the transport failed.
void sendReplies(transport::Connection &conn,
                 const std::vector<std::vector<uint8_t>> &replies,
                 SessionMetrics &metrics, std::string *reason) {
  uint64_t start = monotonicNs();
  for (const std::vector<uint8_t> &r : replies) {
    if (conn.send(r.data(), r.size()) != transport::Status::Ok) {
      *reason = "cannot send reply: " + conn.lastError();
      break;
    }
    metrics.replies.add(1);
    metrics.bytesOut.add(r.size());
  }
  metrics.replyNs.add(monotonicNs() - start);
}

// A batch the client waited for: its times, and the gap since the previous
// reply (the client's work plus the link, seen from here).
void recordRoundTrip(const Session::BatchTiming &b, SessionMetrics &metrics,
                     uint64_t lastReplySent, uint64_t received,
                     uint64_t sendStart, uint64_t sendEnd) {
  if (!b.replyWanted)
    return;
  RoundTripSample s;
  s.gapNs = lastReplySent ? received - lastReplySent : 0;
  s.replayNs = b.replayNs;
  s.readbackNs = b.readbackNs;
  s.uploadNs = b.uploadNs;
  s.launchNs = b.launchNs;
  s.syncNs = b.syncNs;
  s.buildNs = b.buildNs;
  s.sendNs = sendEnd - sendStart;
  metrics.recentRoundTrips.add(s);
}
} // namespace

ServerCore::ServerCore() = default;
ServerCore::~ServerCore() { stop(); }

bool ServerCore::start(const ServerOptions &options, std::string *error) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<auth::Key> keys;
  if (!options.authKeyFile.empty() &&
      !auth::loadKeyFile(options.authKeyFile, &keys, error))
    return false;
  for (const std::string &path : options.manifests)
    if (!registry_.addFile(path, error))
      return false;
  if (options.testDevice) {
    backend_ = makeHostBackend(options.testDevices);
  } else {
    backend_ = makeCudaBackend(options.devices, error);
    if (!backend_) {
      if (error)
        *error += " (use --test-device to run without a GPU)";
      return false;
    }
  }
  if (!backend_->prepare(registry_, error))
    return false;
  env_.reset(new SessionEnv{registry_, *backend_, &health_, std::move(keys),
                            &authThrottle_});
  if (!options.metricsFile.empty()) {
    metricsWriter_ =
        std::make_unique<MetricsFileWriter>(metrics_, options.metricsFile);
    if (!metricsWriter_->start(error)) {
      metricsWriter_.reset();
      return false;
    }
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%zu manifests, %zu modules, %zu kernels, %zu variables "
                "resolved in %.1f ms; backend %s, %d device(s):",
                registry_.manifestCount(), registry_.modules.size(),
                registry_.kernels.size(), registry_.variables.size(), ms,
                backend_->device(0).backend.c_str(), backend_->deviceCount());
  summary_ = buf;
  for (int i = 0; i < backend_->deviceCount(); ++i)
    summary_ +=
        (i ? ", " : " ") + std::to_string(i) + " " + backend_->device(i).name;
  size_t nKeys = env_->keys.size();
  summary_ += nKeys ? "; clients authenticate (" + std::to_string(nKeys) +
                          (nKeys == 1 ? " key)" : " keys)")
                    : "; no authentication";
  return true;
}

void ServerCore::reapFinished() {
  std::lock_guard<std::mutex> lock(workersMutex_);
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void ServerCore::serve(std::unique_ptr<transport::Connection> conn) {
  reapFinished();
  std::lock_guard<std::mutex> lock(workersMutex_);
  workers_.emplace_back();
  Worker &w = workers_.back();
  // The thread owns the connection; `w` stays put (std::list).
  w.thread = std::thread(
      [this, &w](std::unique_ptr<transport::Connection> c) {
        runSession(*c);
        c.reset();
        w.done = true;
      },
      std::move(conn));
}

void ServerCore::runSession(transport::Connection &conn) {
  if (!env_) {
    logError("session refused: server not started");
    return;
  }
  ++live_;
  std::string reason;
  SessionStats stats;
  uint64_t id = nextSession_++;
  uint32_t pid = 0;
  {
    Session session(*env_, id);
    session.useConnection(&conn);
    metrics_.open(id, session.metrics());
    logDebug("session " + std::to_string(id) + " from " +
             conn.peerDescription());
    std::vector<uint8_t> message;
    std::vector<std::vector<uint8_t>> replies;
    uint64_t lastReplySent = 0; // for the client's share of a round trip
    while (reason.empty()) {
      if (stopping_) {
        reason = "server shutting down";
        break;
      }
      transport::Status st = conn.recv(message, kPollMs);
      if (st == transport::Status::Timeout) {
        if (!conn.peerAlive())
          reason = "client gone (no sign of life)";
        continue;
      }
      if (st == transport::Status::Closed) {
        reason = "client disconnected";
        break;
      }
      if (st != transport::Status::Ok) {
        reason = "transport error: " + conn.lastError();
        break;
      }
      uint64_t received = monotonicNs();
      replies.clear();
      Session::Next next =
          session.handle(message.data(), message.size(), replies);
      if (!replies.empty()) {
        uint64_t sendStart = monotonicNs();
        sendReplies(conn, replies, *session.metrics(), &reason);
        uint64_t sendEnd = monotonicNs();
        recordRoundTrip(session.lastBatch(), *session.metrics(), lastReplySent,
                        received, sendStart, sendEnd);
        lastReplySent = sendEnd;
      }
      if (reason.empty() && next == Session::Next::Close)
        reason = session.closeReason();
    }
    stats = session.stats();
    pid = session.clientPid();
  } // the session's context (and all its memory) is destroyed here
  std::string devices;
  for (int d : stats.devices)
    devices += (devices.empty() ? "" : ",") + std::to_string(d);
  logInfo("session " + std::to_string(id) + " (app pid " + std::to_string(pid) +
          ") closed: " + std::to_string(stats.batches) + " batches, " +
          std::to_string(stats.commands) + " commands, " +
          std::to_string(stats.bytesIn) + " bytes in, device(s) " +
          (devices.empty() ? "none" : devices) + " (" + reason + ")");
  metrics_.close(id, reason);
  if (metricsWriter_)
    metricsWriter_->poke();
  ++closed_;
  --live_;
}

void ServerCore::stop() {
  stopping_ = true;
  std::list<Worker> workers;
  {
    std::lock_guard<std::mutex> lock(workersMutex_);
    workers.splice(workers.end(), workers_);
  }
  for (Worker &w : workers)
    if (w.thread.joinable())
      w.thread.join();
  metricsWriter_.reset(); // a last write: every session is closed now
}

} // namespace rc::server
