// rc-server's worker processes (--isolation process, docs/server-isolation.md
// "Fault containment"): each serves one session in a CUDA context of its own,
// so a sticky GPU error (a device assert, an illegal address) ends that process
// and no other session. The pool keeps `warm` workers started (manifests
// loaded, modules resolved, listening) ahead of the clients, so a session
// does not wait for a process to start; each worker ends with its session
// and is replaced.
#ifndef RC_SERVER_WORKER_POOL_H
#define RC_SERVER_WORKER_POOL_H

#include "isolation/worker_channel.h"
#include "isolation/worker_metrics.h"
#include "metrics/server_exposition.h"
#include "rc/server/budget_table.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace rc::server {

struct WorkerPoolOptions {
  // A worker's command line: rc-server's own, to which the pool adds
  // --listen (a private address) and --worker-channel.
  std::vector<std::string> command;
  std::string listenUrl; // the supervisor's: workers listen beside it
  int warm = 1;          // idle workers kept ready
  int max = 32;          // workers at most, busy or not
  // A reservation's ticket lapses this long after it was handed out, and
  // its worker is free again, unless the client redeemed it.
  uint32_t ticketMs = 1000;
  // Reservations one holder may have that are not redeemed yet.
  int unredeemedPerHolder = 2;
  // Called when a reservation for `tenant` (reserve()'s) is over: its
  // ticket lapsed, or the worker that took it ended.
  std::function<void(const std::string &tenant)> released;
  // The budget table every worker charges (rc/server/budget_table.h), with
  // a row for each of `max` workers; a worker's row is released when it
  // ends. Null: workers make their own.
  BudgetTable *budgets = nullptr;
  // With --metrics or --metrics-listen: what the workers say of their
  // sessions. Null: none.
  WorkerMetrics *metrics = nullptr;
  // The workers are clients of one MPS server (docs/design/gpu-sharing.md):
  // a fatal fault in one session reaches the contexts of all, so idle
  // workers are replaced after one.
  bool shareMpsServer = false;
  // What a worker serving `tenant` needs in its environment beyond
  // rc-server's own (MPS bounds of its quota, read at the worker's first
  // CUDA call). For a tenant with some, reserve() gets a worker started
  // for it, not a warm one. Null, or empty for a tenant: any warm worker.
  std::function<std::vector<std::pair<std::string, std::string>>(
      const std::string &tenant)>
      tenantEnvironment;
};

class WorkerPool {
public:
  using Clock = std::chrono::steady_clock;
  struct Reservation {
    pid_t pid = -1;
    std::string address; // where the worker listens
    std::vector<uint8_t> ticket;
  };
  // Who asks: `tenant` is counted against its quota until the reservation
  // is over (passed to `released`; "" for none); `holder` alone may redeem
  // the ticket, and holds at most unredeemedPerHolder unredeemed ones.
  struct Request {
    std::string tenant;
    std::string holder;
  };

  explicit WorkerPool(WorkerPoolOptions options);
  ~WorkerPool(); // kills whatever still runs

  // Starts the warm workers and waits (up to timeoutMs) for the first to be
  // ready; *summary is its start-up line (manifests, devices). False when
  // none became ready: *error says why (the worker printed its own error).
  bool start(int timeoutMs, std::string *summary, std::string *error);
  // A ready worker reserved for one client, with a fresh ticket it now
  // expects; false with *why when none became ready within timeoutMs, or
  // at once when the holder has its unredeemed reservations already
  // (*retryMs then says when the first of them lapses) or after timeoutMs
  // with every worker busy at --max-workers (*retryMs: when to start
  // over); *retryMs is 0 for the other refusals.
  bool reserve(int timeoutMs, const Request &request, Reservation *out,
               std::string *why, uint32_t *retryMs);
  // No more workers start; `sig` goes to every worker.
  void stopSpawning(int sig);
  // Waits until every worker has ended or timeoutMs passed; true if none
  // is left.
  bool waitAllEnded(int timeoutMs);
  size_t workers() const;
  // Workers by state, the pool's bounds and how many ended how
  // (GET /metrics, docs/metrics.md).
  WorkerPoolFigures figures() const;

private:
  // Reserved: its ticket is out and not redeemed yet; Busy: its session
  // opened.
  enum class State { Starting, Ready, Reserved, Busy };
  struct Worker {
    pid_t pid = -1;
    std::unique_ptr<WorkerChannel> channel;
    State state = State::Starting;
    bool channelOpen = true;
    std::string address;
    Request request;            // whom it was reserved for
    Clock::time_point lapses{}; // Reserved: when its ticket lapses
    int row = -1;               // its row of options_.budgets
    std::string startedFor;     // the tenant whose environment it has
  };
  // Starts a worker; with `tenant`, one with that tenant's environment.
  bool spawnLocked(std::string *error, const std::string &tenant = "");
  // The tenant a request needs a worker of its own for ("" for any).
  std::string dedicatedTenant(const Request &request) const;
  // Refuses a holder that has all its unredeemed reservations already.
  bool holderMayReserveLocked(const std::string &holder, std::string *why,
                              uint32_t *retryMs) const;
  // The reservation of `w` is over (lapsed, or the worker ended).
  void releaseLocked(Worker &w);
  std::string workerUrl(uint64_t n) const;
  void monitor();
  void readChannels();
  // Handles every message `w` sent that is still unread.
  void takeMessagesLocked(Worker &w);
  void reapEnded();
  // After a session's fatal fault under MPS: idle workers' contexts may
  // hold it too; they end and fresh ones start.
  void retireIdleLocked();
  void refill();

  const WorkerPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::list<Worker> workers_;
  bool spawning_ = true;
  bool stopping_ = false;
  int waiting_ = 0; // reserve() calls waiting for a warm worker
  // reserve() calls waiting for a worker started for their tenant.
  std::map<std::string, int> waitingFor_;
  bool everReady_ = false; // some worker became ready
  std::string firstSummary_;
  std::string lastFailure_; // how the last worker that never got ready ended
  uint64_t spawned_ = 0;
  uint64_t endedClean_ = 0, endedGpuLost_ = 0, endedFailed_ = 0;
  std::vector<int> freeRows_;     // of options_.budgets
  uint64_t nextSession_ = 1;      // the number a reserved worker's session gets
  Clock::time_point nextSpawn_{}; // after a failed start: not before this
  std::thread monitor_;
};

} // namespace rc::server

#endif
