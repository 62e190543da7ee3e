// What GET /metrics answers (rc-server --metrics-listen, docs/metrics.md):
// the server's figures in Prometheus' text format, gathered at the moment
// of the request. A one-process server takes them from what the metrics
// file is written from (the metrics board), the budget table (memory, per
// tenant), the content cache and its own counters; a supervisor of
// --isolation process from what its workers report and its worker pool.
// Both fill ServerFigures and one writer turns it into text, so the two
// expose the same names and labels. Tenants' figures carry a `tenant`
// label; the endpoint is the operator's, like the metrics file.
#ifndef RC_SERVER_SERVER_EXPOSITION_H
#define RC_SERVER_SERVER_EXPOSITION_H

#include "rc/server/budget_table.h"
#include "rc/server/content_cache.h"
#include "rc/server/metrics_board.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rc::server {

class ServerCore;

// A supervisor's worker processes (--isolation process).
struct WorkerPoolFigures {
  // Workers now by state: "starting", "ready", "reserved", "busy".
  std::map<std::string, uint64_t> byState;
  uint64_t warm = 0, max = 0; // --warm-workers, --max-workers
  // Workers that ended, by how: "clean", "gpu_state_lost", "failed".
  std::map<std::string, uint64_t> endedByHow;
};

// Everything the exposition shows; a figure left empty is not exposed.
struct ServerFigures {
  SessionTotals totals; // counters: never lower than at a former scrape
  uint64_t sessionsOpen = 0;
  uint64_t deviceBytes = 0;
  std::vector<BudgetTable::Usage> budgets; // pinned memory, tenants' quotas
  std::optional<ContentCache::Stats> cache;
  std::optional<uint64_t> sessionThreads, connectionsWaiting;
  uint64_t authFailures = 0;
  bool gpuStateLost = false;
  std::optional<WorkerPoolFigures> workers;
};

// A one-process server's figures now.
ServerFigures serverFigures(ServerCore &core);
std::string serverExposition(const ServerFigures &figures);
inline std::string serverExposition(ServerCore &core) {
  return serverExposition(serverFigures(core));
}

} // namespace rc::server

#endif
