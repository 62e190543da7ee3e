#include "rc/server/server_core.h"

#include "admission/key_admission.h"
#include "admission/lobby.h"
#include "config_reload.h"
#include "executor/shared_memory.h"
#include "metrics/metrics_file_writer.h"
#include "rc/server/log.h"

#include <malloc.h>

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

// Until its session is established a client may only send what a
// handshake needs.
transport::ReceiveLimits pendingLimits(const ServerLimits &l) {
  return {l.pendingMessageBytes, l.pendingMessageBytes};
}

// A sanitizer replaces malloc: glibc's arenas then were never set up, and
// trimming them from two ending sessions at once races in that first set-up
// (a crash 1 run in ~20 of CoreTest.TwoClients* under ASan).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerOwnsTheHeap = true;
#elif defined(__has_feature)
constexpr bool kSanitizerOwnsTheHeap = __has_feature(address_sanitizer) ||
                                       __has_feature(thread_sanitizer) ||
                                       __has_feature(memory_sanitizer);
#else
constexpr bool kSanitizerOwnsTheHeap = false;
#endif

// Hands what a session's context and connection freed back to the system
// (glibc keeps free memory inside its arenas resident; with main()'s fixed
// mmap threshold, see there).
void releaseFreedHeap() {
  if (!kSanitizerOwnsTheHeap)
    malloc_trim(0);
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
  if (!options.quotasFile.empty()) {
    quotas_ = std::make_unique<TenantQuotas>();
    if (!quotas_->load(options.quotasFile, keys, error))
      return false;
  }
  // A worker of --isolation process counts no sessions and charges the
  // budget table of its supervisor, which counts them and made it.
  if (options.budgetTableFd >= 0)
    budgetTable_ =
        BudgetTable::attach(options.budgetTableFd, options.budgetHolder, error);
  else
    budgetTable_ = BudgetTable::create(
        serverBudgetSpecs(options.settings.limits, quotas_.get(), keys), 1,
        error);
  if (quotas_ && !options.reservedSession)
    tenants_ = std::make_unique<TenantLedger>(*quotas_);
  if (!budgetTable_)
    return false;
  for (const std::string &path : options.manifests)
    if (!registry_.addFile(path, error))
      return false;
  if (options.testDevice) {
    backend_ = makeHostBackend(options.testDevices);
  } else {
    backend_ = makeCudaBackend(options.devices, options.settings.cuda, error);
    if (!backend_) {
      if (error)
        *error += " (use --test-device to run without a GPU)";
      return false;
    }
  }
  if (!backend_->prepare(registry_, error))
    return false;
  if (int n = SharedMemory::removeFilesOfDeadServers())
    logInfo("removed " + std::to_string(n) +
            " shared-memory file(s) of rc-servers that are gone");
  limits_ = options.settings.limits;
  auto reply = budgetTable_->budget(ServerBudgets::kReplyName);
  auto pinned = budgetTable_->budget(ServerBudgets::kPinnedName);
  if (!reply || !pinned) {
    *error = "the budget table has no server budgets";
    return false;
  }
  budgets_ =
      std::make_unique<ServerBudgets>(std::move(reply), std::move(pinned));
  env_.reset(new SessionEnv{
      registry_, *backend_, &health_, std::move(keys), &authThrottle_, &limits_,
      budgets_.get(), options.settings.session,
      options.reservedSession ? &ticket_ : nullptr, &waitingContext_,
      tenants_.get(), budgetTable_.get(), quotas_.get()});
  if (!env_->keys.empty()) {
    keyRing_ = std::make_unique<KeyRing>(env_->keys);
    env_->keyRing = keyRing_.get();
    reload_ = std::make_unique<ConfigReload>(options.authKeyFile, *keyRing_,
                                             quotas_.get(), budgetTable_.get());
  }
  endSessionsOfRemovedKeys_ = options.endSessionsOfRemovedKeys;
  if (options.cacheBytes && !startContentCache(options, error))
    return false;
  if (!options.metricsFile.empty() && !options.reservedSession) {
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
  if (cache_) {
    ContentCache::Stats c = cache_->stats();
    summary_ += "; content cache " + std::to_string(c.capacity >> 20) + " MiB";
    if (!options.cacheDir.empty())
      summary_ += " (on disk " + std::to_string(c.diskBytes >> 20) + " of " +
                  std::to_string(options.cacheDiskBytes >> 20) + " MiB in " +
                  options.cacheDir + ")";
  }
  size_t nKeys = env_->keys.size();
  summary_ += nKeys ? "; clients authenticate (" + std::to_string(nKeys) +
                          (nKeys == 1 ? " key)" : " keys)")
                    : "; no authentication";
  lobby_ = std::make_unique<Lobby>(
      limits_.maxPending, limits_.helloTimeoutMs,
      [this](std::unique_ptr<transport::Connection> c, std::vector<uint8_t> m,
             Lobby::Clock::time_point arrived) {
        startSession(std::move(c), std::move(m), arrived);
      },
      // Sessions still in their handshake have a thread each: no more of
      // them than of connections waiting in the lobby.
      [this] { return handshaking_ < limits_.maxPending; });
  if (options.contextAhead)
    waitingContext_.keepOneReady([this]() -> std::unique_ptr<DeviceContext> {
      if (health_.lost() || stopping_)
        return nullptr; // the server restarts; no context of it is usable
      std::string error;
      std::unique_ptr<DeviceContext> ctx = backend_->createContext(0, &error);
      if (!ctx) {
        logDebug("no session context made ahead: " + error +
                 " (the next session makes its own)");
        return nullptr;
      }
      backend_->leaveContext(); // the session makes it current
      return ctx;
    });
  return true;
}

bool ServerCore::prepareContext(std::string *error) {
  std::unique_ptr<DeviceContext> ctx = backend_->createContext(0, error);
  if (!ctx)
    return false;
  backend_->leaveContext();
  waitingContext_.put(std::move(ctx));
  return true;
}

void ServerCore::serve(std::unique_ptr<transport::Connection> conn) {
  if (!lobby_) {
    logError("session refused: server not started");
    return;
  }
  conn->limitReceive(pendingLimits(limits_));
  lobby_->admit(std::move(conn));
}

void ServerCore::startSession(std::unique_ptr<transport::Connection> conn,
                              std::vector<uint8_t> first,
                              std::chrono::steady_clock::time_point arrived) {
  ++handshaking_; // before the thread: the lobby's next check counts it
  // The thread owns the connection.
  sessionThreads_.start(
      [this, arrived, c = std::move(conn), m = std::move(first)]() mutable {
        runSession(*c, std::move(m), arrived);
        c.reset();
        releaseFreedHeap();
      });
}

size_t ServerCore::waitingConnections() const {
  return lobby_ ? lobby_->waiting() : 0;
}

size_t ServerCore::sessionThreads() { return sessionThreads_.running(); }

void ServerCore::runSession(transport::Connection &conn,
                            std::vector<uint8_t> first,
                            std::chrono::steady_clock::time_point arrived) {
  ++live_;
  std::string reason;
  SessionStats stats;
  uint64_t id = nextSession_++;
  uint32_t pid = 0;
  std::string tenant;
  {
    Session session(*env_, id);
    session.useConnection(&conn);
    metrics_.open(id, session.metrics());
    logDebug({"session_started", id, ""}, "session " + std::to_string(id) +
                                              " from " +
                                              conn.peerDescription());
    std::vector<uint8_t> message = std::move(first);
    bool haveMessage = true; // the first one came through the lobby
    bool established = false;
    const auto handshakeEnd =
        arrived + std::chrono::milliseconds(limits_.helloTimeoutMs);
    std::vector<std::vector<uint8_t>> replies;
    uint64_t lastReplySent = 0; // for the client's share of a round trip
    uint64_t keysSeen = keyRing_ ? keyRing_->generation() : 0;
    while (reason.empty()) {
      if (stopping_) {
        reason = "server shutting down";
        break;
      }
      if (established && keyRing_ && keyRing_->generation() != keysSeen) {
        keysSeen = keyRing_->generation();
        reason = keyRemovalReason(session.tenant());
        if (!reason.empty())
          break;
      }
      if (!established && std::chrono::steady_clock::now() >= handshakeEnd) {
        reason = "handshake not completed within " +
                 std::to_string(limits_.helloTimeoutMs) + " ms";
        break;
      }
      transport::Status st = transport::Status::Ok;
      if (!haveMessage)
        st = conn.recv(message, kPollMs);
      haveMessage = false;
      if (st == transport::Status::Timeout) {
        if (!conn.peerAlive())
          reason = "client gone (no sign of life)";
        continue;
      }
      if (st == transport::Status::Closed) {
        // The transport says why: an orderly close, the process gone, or
        // a bound the client broke.
        reason = "client disconnected: " + conn.lastError();
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
      if (!established && session.established()) {
        // Before the reply goes out: the client's next message may be a
        // full batch.
        established = true;
        --handshaking_;
        conn.limitReceive({limits_.messageBytes, limits_.queuedBytes});
      }
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
    if (!established)
      --handshaking_;
    stats = session.stats();
    pid = session.clientPid();
    tenant = session.tenant();
  } // the session's context (and all its memory) is destroyed here
  std::string devices;
  for (int d : stats.devices)
    devices += (devices.empty() ? "" : ",") + std::to_string(d);
  logInfo({"session_closed", id, tenant},
          "session " + std::to_string(id) + " (app pid " + std::to_string(pid) +
              (tenant.empty() ? "" : ", tenant '" + tenant + "'") +
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

std::string ServerCore::keyRemovalReason(const std::string &tenant) const {
  if (!endSessionsOfRemovedKeys_ || tenant.empty() || keyRing_->holds(tenant))
    return "";
  return "its key '" + tenant +
         "' was removed from the key file (on_key_removed = end)";
}

bool ServerCore::startContentCache(const ServerOptions &o, std::string *error) {
  const uint64_t bytes = o.cacheBytes;
  cacheContext_ = backend_->createContext(0, error);
  if (!cacheContext_) {
    *error = "the content cache needs a device context: " + *error;
    return false;
  }
  DeviceContext *ctx = cacheContext_.get();
  ContentCache::Options cacheOptions;
  cacheOptions.capacity = bytes;
  cache_ = std::make_unique<ContentCache>(
      cacheOptions,
      [ctx](uint64_t n) {
        uint8_t *p = nullptr;
        return ctx->hostAlloc(n, &p).ok() ? p : nullptr;
      },
      [ctx](uint8_t *p) { ctx->hostFree(p); });
  if (!cache_->ok()) {
    cache_.reset();
    *error = "cannot allocate the content cache's " + std::to_string(bytes) +
             " bytes of pinned host memory (rc-server --cache; at least " +
             std::to_string(cacheOptions.chunkBytes) + ")";
    return false;
  }
  if (!o.cacheDir.empty()) {
    auto files = std::make_unique<ChunkFiles>();
    if (!files->open(o.cacheDir, o.cacheDiskBytes, error)) {
      *error = "the content cache's disk tier (--cache-dir): " + *error;
      return false;
    }
    cache_->useDiskTier(std::move(files));
  }
  env_->cache = cache_.get();
  metrics_.showContentCache(cache_.get());
  return true;
}

void ServerCore::stop() {
  stopping_ = true;
  lobby_.reset(); // no new sessions start
  waitingContext_.stop();
  sessionThreads_.joinAll();
  metricsWriter_.reset(); // a last write: every session is closed now
}

transport::AdmissionCheck ServerCore::admission() {
  if (keyRing_)
    return keyAdmission(keyRing_.get(), &authThrottle_);
  return env_ ? keyAdmission(env_->keys, &authThrottle_) : nullptr;
}

bool ServerCore::reload(std::string *summary, std::string *error) {
  if (!reload_) {
    *error = "nothing to reload: the server has no --auth-key-file";
    return false;
  }
  return reload_->run(summary, error);
}

} // namespace rc::server
