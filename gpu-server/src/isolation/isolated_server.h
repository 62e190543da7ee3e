// rc-server --isolation process (docs/server-isolation.md, "Fault
// containment"): the supervisor's main loop, which listens on the server's
// address and hands each client to a worker process, and a worker's, which
// serves the one session it was reserved for and ends with it.
#ifndef RC_SERVER_ISOLATED_SERVER_H
#define RC_SERVER_ISOLATED_SERVER_H

#include "rc/server/limits.h"
#include "rc/server/server_core.h"

#include <atomic>
#include <string>
#include <vector>

namespace rc::server {

// What main()'s signal handler saw: SIGINT stops at once, SIGTERM drains, a
// second signal of either kind ends the draining.
struct ProcessSignals {
  std::atomic<bool> stop{false};
  std::atomic<int> last{0};
  std::atomic<int> count{0};
};

struct SupervisorOptions {
  std::string listenUrl;
  std::string authKeyFile; // empty: no authentication
  std::string quotasFile;  // empty: no quotas (rc/server/tenant_quotas.h)
  std::string metricsFile; // empty: none (the workers' sessions, merged)
  // --metrics-listen: GET /metrics on host:port (port 0: any free one),
  // summed from the workers' reports; empty host: not served.
  std::string metricsHost;
  int metricsPort = 0;
  std::string metricsToken; // --metrics-token-file's; empty: none
  std::vector<std::string> workerCommand;
  int warmWorkers = 1;
  int maxWorkers = 32;
  ServerLimits limits;
  uint64_t drainMs = 30000;
  bool shareMpsServer = false; // the workers are clients of one MPS server
};

// Returns 0 after a signal, 1 when it cannot start (no worker became
// ready, the address or key file refused).
int runSupervisor(const SupervisorOptions &options,
                  const ProcessSignals &signals);

// `core` is started with ServerOptions::reservedSession. Returns 0 once the
// session ended (or its client never came, or the supervisor went before
// reserving this worker), 3 when the session lost the GPU state, 1 on a
// start-up error.
struct WorkerOptions {
  std::string listenUrl; // its private address
  int channelFd = -1;    // the socket to the supervisor
  ServerLimits limits;
  uint64_t drainMs = 30000;
  bool sendMetrics = false; // its session's counters go to the supervisor
  bool sendTotals = false;  // and its totals (--metrics-listen)
};
int runWorker(ServerCore &core, const WorkerOptions &options,
              const ProcessSignals &signals);

} // namespace rc::server

#endif
