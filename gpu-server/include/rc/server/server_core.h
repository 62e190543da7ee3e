// rc-server without the network: loads manifests, prepares the backend and
// runs sessions over any rc::transport::Connection (tests use in-memory
// ones). A served connection waits in a lobby, one thread for all of them,
// until its client's first message; then its session gets a thread of its
// own (docs/server-internals/bounds.md, "Bounds").
#ifndef RC_SERVER_SERVER_CORE_H
#define RC_SERVER_SERVER_CORE_H

#include "rc/server/auth_throttle.h"
#include "rc/server/backend.h"
#include "rc/server/budget_table.h"
#include "rc/server/content_cache.h"
#include "rc/server/key_ring.h"
#include "rc/server/metrics_board.h"
#include "rc/server/registry.h"
#include "rc/server/session.h"
#include "rc/server/settings.h"
#include "rc/server/thread_set.h"
#include "rc/transport.h"

#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rc::server {

struct ServerOptions {
  std::vector<std::string> manifests;
  bool testDevice = false;
  // Clients must prove they hold a key of this file (docs/security.md);
  // empty: no authentication.
  std::string authKeyFile;
  std::vector<int> devices; // CUDA ordinals; empty: every visible GPU
  int testDevices = 1;      // with testDevice: how many
  std::string metricsFile;  // empty: no metrics file (docs/server.md); a
                            // worker leaves the file to its supervisor
  // A worker process of --isolation process: only the Hello with the
  // ticket given to ticket() opens a session (rc/server/session_ticket.h).
  bool reservedSession = false;
  // Keeps device 0's next session context made ahead, made again after
  // each session takes it (rc/server/waiting_context.h): rc-server without
  // worker processes. Off for in-process uses (tests, tools).
  bool contextAhead = false;
  // Per-tenant bounds (rc/server/tenant_quotas.h); empty: none. Needs
  // authKeyFile: tenants are key ids.
  std::string quotasFile;
  // A worker's budget table (rc/server/budget_table.h): the file
  // descriptor its supervisor passed and its row. -1: the process makes a
  // table of its own.
  int budgetTableFd = -1;
  int budgetHolder = 0;
  // The content cache's size in bytes (rc-server --cache; 0: none), and
  // its disk tier (--cache-dir, --cache-disk; empty: none).
  uint64_t cacheBytes = 0;
  std::string cacheDir;
  uint64_t cacheDiskBytes = 0;
  ServerSettings settings; // the environment's, read once (main.cpp)
  // on_key_removed = "end": a reload that removes a key ends its live
  // sessions; else they keep running (docs/metrics.md).
  bool endSessionsOfRemovedKeys = false;
};

class MetricsFileWriter;
class Lobby;
class ConfigReload;

class ServerCore {
public:
  ServerCore();
  ~ServerCore(); // stops and joins every session

  // Loads and verifies every manifest and the key file, starts the backend
  // and resolves every kernel and variable. On failure *error says which
  // file/symbol and why.
  bool start(const ServerOptions &options, std::string *error);
  // "3 manifests, 6 modules, 42 kernels, 3 variables resolved in 12.3 ms;
  //  backend cuda, 1 device(s): 0 NVIDIA H100 80GB HBM3; clients
  //  authenticate (1 key)"
  const std::string &summary() const { return summary_; }

  // What its listener asks of a client before it opens anything for it
  // (key_admission.h): a proof of one of its keys; none without keys.
  transport::AdmissionCheck admission();

  // Runs a session for `conn`: in the lobby until its first message, then
  // on a thread of its own.
  void serve(std::unique_ptr<transport::Connection> conn);
  // Asks every session to end and waits for them.
  void stop();
  // SIGHUP: reads the key file and the quotas file again and applies them
  // (config_reload.h); false with *error, changing nothing, when either is
  // wrong or the server has no key file.
  bool reload(std::string *summary, std::string *error);

  Backend &backend() { return *backend_; }
  const Registry &registry() const { return registry_; }
  uint64_t liveSessions() const { return live_; }
  // The next session gets number `id` (a worker's, from its supervisor, so
  // that numbers are unique across workers).
  void numberSessionsFrom(uint64_t id) { nextSession_ = id; }
  uint64_t closedSessions() const { return closed_; }
  // With ServerOptions::reservedSession: the session this process waits for.
  SessionTicket &ticket() { return ticket_; }
  // With ServerOptions::reservedSession: makes device 0's context now, for
  // that session to take (SessionEnv::waitingContext).
  bool prepareContext(std::string *error);
  // True after a sticky CUDA error in any session: every context of this
  // process is unusable, so rc-server must restart (main() re-executes).
  bool deviceLost() const { return health_.lost(); }
  std::string deviceLostReason() const { return health_.reason(); }
  // Every session's counters (what --metrics writes).
  const MetricsBoard &metrics() const { return metrics_; }
  // Device memory held by all sessions together.
  uint64_t bytesInUse() const { return backend_ ? backend_->bytesInUse() : 0; }
  // Connections waiting for their first message; session threads running.
  size_t waitingConnections() const;
  size_t sessionThreads();
  const ServerBudgets *budgets() const { return budgets_.get(); }
  // Every budget's use, tenants' quotas included (null before start()).
  const BudgetTable *budgetTable() const { return budgetTable_.get(); }
  // Failed authentications, for the metrics endpoint.
  const AuthThrottle &authThrottle() const { return authThrottle_; }
  // rc-server --cache (null: none).
  ContentCache *contentCache() { return cache_.get(); }

private:
  // Starts the session thread for a connection whose first message came.
  void startSession(std::unique_ptr<transport::Connection> conn,
                    std::vector<uint8_t> first,
                    std::chrono::steady_clock::time_point arrived);
  // The content cache (options' cache*) and the context its pool belongs
  // to.
  bool startContentCache(const ServerOptions &options, std::string *error);
  // Why a session of `tenant` ends after a reload ("" when it keeps
  // running: its key stayed, or on_key_removed is keep).
  std::string keyRemovalReason(const std::string &tenant) const;
  // Runs a session on the calling thread until the client leaves.
  void runSession(transport::Connection &conn, std::vector<uint8_t> first,
                  std::chrono::steady_clock::time_point arrived);

  Registry registry_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<SessionEnv> env_;
  ServerLimits limits_;
  std::unique_ptr<BudgetTable> budgetTable_;
  std::unique_ptr<ServerBudgets> budgets_;
  // Sessions whose handshake has not finished (their thread runs).
  std::atomic<int> handshaking_{0};
  DeviceHealth health_;
  AuthThrottle authThrottle_;
  std::string summary_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> nextSession_{1};
  std::atomic<uint64_t> live_{0};
  std::atomic<uint64_t> closed_{0};
  SessionTicket ticket_;
  WaitingContext waitingContext_;         // after backend_: destroyed before it
  std::unique_ptr<TenantQuotas> quotas_;  // with quotasFile
  std::unique_ptr<TenantLedger> tenants_; // with quotasFile, not in a worker
  std::unique_ptr<KeyRing> keyRing_;      // with authKeyFile
  std::unique_ptr<ConfigReload> reload_;  // with authKeyFile
  bool endSessionsOfRemovedKeys_ = false;
  // With cacheBytes: the cache's pool is pinned memory of a context of its
  // own, kept for the server's life (sessions' contexts come and go).
  std::unique_ptr<DeviceContext> cacheContext_; // after backend_
  std::unique_ptr<ContentCache> cache_;         // after cacheContext_
  ThreadSet sessionThreads_;
  MetricsBoard metrics_;
  std::unique_ptr<MetricsFileWriter> metricsWriter_; // with --metrics
  std::unique_ptr<Lobby> lobby_; // last: its thread starts sessions
};

} // namespace rc::server

#endif
