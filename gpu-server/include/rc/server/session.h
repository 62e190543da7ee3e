// One client's session, independent of the transport: it consumes received
// messages and produces reply messages. The first message must be Hello;
// after it, Batches are replayed by the session's Executor.
#ifndef RC_SERVER_SESSION_H
#define RC_SERVER_SESSION_H

#include "rc/auth/key_file.h"
#include "rc/auth/proof.h"
#include "rc/server/auth_throttle.h"
#include "rc/server/backend.h"
#include "rc/server/budget_table.h"
#include "rc/server/device_output.h"
#include "rc/server/key_ring.h"
#include "rc/server/session_metrics.h"
#include "rc/server/session_recording.h"
#include "rc/server/session_ticket.h"
#include "rc/server/settings.h"
#include "rc/server/tenant_quotas.h"
#include "rc/server/waiting_context.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rc::transport {
class Connection;
}

namespace rc::server {

class ContentCache;

class Executor;
class HelloAuth;

// What a fault in one session does to the others. With CUDA a sticky error
// (illegal address, launch failure, ...) poisons every context of the
// process, existing and new (verified on an H100, driver 580): the whole
// server must restart. Sessions report it here; ServerCore acts on it.
class DeviceHealth {
public:
  void markLost(const std::string &why);
  bool lost() const;
  std::string reason() const;

private:
  mutable std::mutex mutex_;
  bool lost_ = false;
  std::string reason_;
};

struct SessionEnv {
  const Registry &registry;
  Backend &backend;
  DeviceHealth *health = nullptr;
  // Keys a client must prove it holds before anything else (rc-server
  // --auth-key-file); empty: no authentication.
  std::vector<auth::Key> keys;
  AuthThrottle *authThrottle = nullptr; // null: failures cost no waiting
  // A session's bounds and the budgets all sessions share (null: the
  // defaults, no shared budgets).
  const ServerLimits *limits = nullptr;
  ServerBudgets *budgets = nullptr;
  SessionSettings settings; // how sessions behave (rc/server/settings.h)
  // A worker process's reservation (--isolation process): only a Hello
  // with this ticket opens a session. Null: any client may.
  SessionTicket *ticket = nullptr;
  WaitingContext *waitingContext = nullptr; // null: none is made ahead
  // What each tenant (key id) holds against its quota (rc-server --quotas);
  // null: no quotas, or a worker whose supervisor counts them.
  TenantLedger *tenants = nullptr;
  // Where each tenant's memory quotas are counted (rc-server's budget
  // table, rc/server/budget_table.h); null: no tenant has one.
  const BudgetTable *budgetTable = nullptr;
  // rc-server --quotas, for what a session of a tenant gets besides
  // bounds (its stream priority); null: no quotas.
  const TenantQuotas *quotas = nullptr;
  // rc-server --cache: chunks of uploads kept across sessions, a namespace
  // per tenant (docs/server-internals/content-cache.md, "Content cache"); null:
  // none.
  ContentCache *cache = nullptr;
  // The keys as SIGHUP reloads them (rc/server/key_ring.h); null: `keys`
  // above, for the server's life.
  const KeyRing *keyRing = nullptr;
};

struct SessionStats {
  uint64_t batches = 0;
  uint64_t commands = 0;
  uint64_t bytesIn = 0;
  uint64_t failedBatches = 0;
  std::vector<int> devices; // devices the session has a context on
};

class Session {
public:
  Session(const SessionEnv &env, uint64_t id);
  ~Session(); // destroys the context: frees everything the client had

  enum class Next { Continue, Close };
  // Handles one received message, appending zero or more replies.
  Next handle(const uint8_t *data, size_t size,
              std::vector<std::vector<uint8_t>> &replies);

  // The handshake succeeded: the client is who it says it is and batches
  // may follow (rc-server then lifts the bounds of the handshake).
  bool established() const { return executor_ != nullptr; }
  uint64_t id() const { return id_; }
  uint32_t clientPid() const { return pid_; }
  const std::string &clientName() const { return name_; }
  // The key id the client proved it holds ("" without authentication).
  const std::string &tenant() const { return tenant_; }
  // Why handle() returned Close ("goodbye", "handshake failed: ...").
  const std::string &closeReason() const { return closeReason_; }
  SessionStats stats() const;
  // Live counters, shared with the metrics board (they outlive the session
  // so that its last numbers can still be listed).
  const std::shared_ptr<SessionMetrics> &metrics() const { return metrics_; }
  // Times of the message handle() last took, if it was a replayed Batch
  // (else all zero): the server loop adds the send and records the round
  // trip.
  struct BatchTiming {
    bool replyWanted = false;
    uint64_t replayNs = 0, readbackNs = 0, buildNs = 0;
    // Parts of replayNs (the rest: other commands and the executor itself).
    uint64_t uploadNs = 0, launchNs = 0, syncNs = 0;
  };
  const BatchTiming &lastBatch() const { return lastBatch_; }
  // The client's connection, for read-backs that asked to be written into
  // the client's memory by RMA (none, as in tests that call handle()
  // directly: they travel in the reply). Set before the Hello.
  void useConnection(transport::Connection *conn) { conn_ = conn; }

private:
  Next onHello(const void *hello, const uint8_t *message, size_t size,
               std::vector<std::vector<uint8_t>> &replies);
  Next onAuthResponse(const void *response,
                      std::vector<std::vector<uint8_t>> &replies);
  // Once the client is authenticated (or needs not be): checks the rest of
  // the Hello, creates the context and replies. `serverProof`: the
  // server's answer to the client's challenge, when there was one.
  Next openSession(const void *hello, const auth::Proof *serverProof,
                   std::vector<std::vector<uint8_t>> &replies);
  // `retryMs` > 0: the client may start over after that long
  // (HelloReply.retry_after_ms).
  Next refuseHello(const std::string &why,
                   std::vector<std::vector<uint8_t>> &replies,
                   uint32_t retryMs = 0);
  // Where the client connects from (peer_source.h).
  std::string peerSource() const;
  Next onBatch(const void *batch, std::vector<std::vector<uint8_t>> &replies);
  void replyError(uint64_t seq, int code, const std::string &message,
                  std::vector<std::vector<uint8_t>> &replies);
  // At Hello: the upload ring of at most `wanted` bytes (the client's
  // wish), exposed for the client's RMA writes (0 when none was wanted,
  // there is no connection, it is turned off, or it cannot be exposed).
  flatbuffers::Offset<wire::RemoteMemory>
  exposeUploadRing(flatbuffers::FlatBufferBuilder &fbb, uint64_t wanted);

  const SessionEnv &env_;
  uint64_t id_;
  uint32_t pid_ = 0;
  std::string name_;
  std::string tenant_;
  bool countedInLedger_ = false; // env_.tenants holds one session for it
  // The tenant's memory quotas, if it has any; the executor charges them
  // (and is gone before they are).
  std::unique_ptr<ByteBudget> tenantDevice_, tenantPinned_;
  std::string closeReason_;
  std::shared_ptr<SessionMetrics> metrics_;
  // The keys of the moment the session started, which its handshake
  // checks (a reload meanwhile does not change them under it).
  std::shared_ptr<const std::vector<auth::Key>> keys_;
  std::unique_ptr<HelloAuth> auth_;
  std::unique_ptr<Executor> executor_;        // exists once Hello succeeded
  std::unique_ptr<SessionRecorder> recorder_; // RC_DEV_SERVER_RECORD_DIR
  BatchTiming lastBatch_;
  transport::Connection *conn_ = nullptr;
  uint8_t *exposedRing_ = nullptr; // withdrawn before the executor frees it
  uint64_t exposedRingSize_ = 0;
  // Batch replies are built here, read-back bytes included, and the buffer
  // is kept between batches; above this size it is given back.
  static constexpr size_t kKeepReplyBuilderBytes = 64u << 20;
  flatbuffers::FlatBufferBuilder replyBuilder_{1 << 16};
  // Device printf output waiting for the next reply (device_output.h).
  DeviceOutput deviceOutput_;
};

} // namespace rc::server

#endif
