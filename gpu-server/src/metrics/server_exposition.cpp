#include "metrics/server_exposition.h"

#include "metrics/prometheus_text.h"
#include "rc/server/server_core.h"

#include <cstdio>

namespace rc::server {

namespace {

std::string commandName(size_t type) {
  const char *name = wire::EnumNameCommand(wire::Command(type));
  return name && *name ? name : std::to_string(type);
}

void sessions(PrometheusText &p, const ServerFigures &f) {
  const SessionTotals &t = f.totals;
  p.family("rc_server_sessions_open", "gauge",
           "Sessions open now (handshaking ones included).");
  p.sample("rc_server_sessions_open", {}, f.sessionsOpen);
  p.family("rc_server_sessions_opened_total", "counter",
           "Sessions opened since start.");
  p.sample("rc_server_sessions_opened_total", {}, t.opened);
  p.family("rc_server_sessions_closed_total", "counter",
           "Sessions closed since start, by the kind of their close reason.");
  for (const auto &[reason, n] : t.closedByReason)
    p.sample("rc_server_sessions_closed_total", {{"reason", reason}}, n);
  p.family("rc_server_batches_total", "counter", "Batches replayed.");
  p.sample("rc_server_batches_total", {}, t.batches);
  p.family("rc_server_failed_batches_total", "counter",
           "Batches stopped at a failing command.");
  p.sample("rc_server_failed_batches_total", {}, t.failedBatches);
}

void commands(PrometheusText &p, const SessionTotals &t) {
  p.family("rc_server_commands_total", "counter",
           "Commands replayed, by command type.");
  for (size_t type = 0; type < kCommandTypeCount; ++type)
    if (t.commands[type])
      p.sample("rc_server_commands_total", {{"type", commandName(type)}},
               t.commands[type]);
  const std::string h = "rc_server_command_duration_seconds";
  p.family(h, "histogram", "Time the server spent on each command.");
  for (size_t type = 0; type < kCommandTypeCount; ++type) {
    if (!t.commands[type])
      continue;
    const std::string name = commandName(type);
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kDurationBucketCount; ++b) {
      cumulative += t.commandBuckets[type][b];
      char le[32];
      if (b < kDurationBucketNs.size())
        std::snprintf(le, sizeof le, "%g", double(kDurationBucketNs[b]) / 1e9);
      else
        std::snprintf(le, sizeof le, "+Inf");
      p.sample(h + "_bucket", {{"type", name}, {"le", le}}, cumulative);
    }
    p.sample(h + "_sum", {{"type", name}}, double(t.commandNs[type]) / 1e9);
    p.sample(h + "_count", {{"type", name}}, cumulative);
  }
}

void bytes(PrometheusText &p, const SessionTotals &t) {
  p.family("rc_server_bytes_total", "counter",
           "Message bytes received from clients (in) and sent to them (out).");
  p.sample("rc_server_bytes_total", {{"direction", "in"}}, t.bytesIn);
  p.sample("rc_server_bytes_total", {{"direction", "out"}}, t.bytesOut);
  p.family("rc_server_bypass_bytes_total", "counter",
           "Data bytes that did not travel in messages: written by RMA, "
           "through shared host memory, or taken from the content cache.");
  p.sample("rc_server_bypass_bytes_total",
           {{"direction", "out"}, {"path", "rma"}}, t.bytesOutRma);
  p.sample("rc_server_bypass_bytes_total",
           {{"direction", "out"}, {"path", "shared"}}, t.bytesOutShared);
  p.sample("rc_server_bypass_bytes_total",
           {{"direction", "in"}, {"path", "shared"}}, t.bytesInShared);
  p.sample("rc_server_bypass_bytes_total",
           {{"direction", "in"}, {"path", "cache"}}, t.bytesInCached);
}

// "tenant/alice/device" -> {"alice", "device"}; false for other budgets.
bool tenantBudget(const std::string &name, std::string *tenant,
                  std::string *kind) {
  const std::string prefix = kTenantBudgetPrefix;
  size_t slash = name.rfind('/');
  if (name.rfind(prefix, 0) != 0 || slash <= prefix.size())
    return false;
  *tenant = name.substr(prefix.size(), slash - prefix.size());
  *kind = name.substr(slash + 1);
  return true;
}

void memory(PrometheusText &p, const ServerFigures &f) {
  p.family("rc_server_device_memory_bytes", "gauge",
           "Device memory all sessions hold together.");
  p.sample("rc_server_device_memory_bytes", {}, f.deviceBytes);
  const std::vector<BudgetTable::Usage> &usage = f.budgets;
  p.family("rc_server_pinned_memory_bytes", "gauge",
           "Pinned host memory sessions hold (upload rings, shared memory).");
  for (const BudgetTable::Usage &u : usage)
    if (u.name == ServerBudgets::kPinnedName)
      p.sample("rc_server_pinned_memory_bytes", {}, u.used);
  // Tenants with a memory quota have a budget each (--quotas).
  for (const char *kind : {"device", "pinned"}) {
    std::string used =
                    std::string("rc_server_tenant_") + kind + "_memory_bytes",
                limit = used + "_limit";
    p.family(used, "gauge",
             "Memory a tenant's sessions hold together (tenants with a "
             "quota of it).");
    std::string tenant, what;
    for (const BudgetTable::Usage &u : usage)
      if (tenantBudget(u.name, &tenant, &what) && what == kind)
        p.sample(used, {{"tenant", tenant}}, u.used);
    p.family(limit, "gauge", "A tenant's quota of that memory.");
    for (const BudgetTable::Usage &u : usage)
      if (tenantBudget(u.name, &tenant, &what) && what == kind)
        p.sample(limit, {{"tenant", tenant}}, u.total);
  }
}

void cache(PrometheusText &p, const std::optional<ContentCache::Stats> &stats) {
  if (!stats)
    return;
  const ContentCache::Stats &s = *stats;
  auto counter = [&](const char *name, const char *help, uint64_t v) {
    p.family(name, "counter", help);
    p.sample(name, {}, v);
  };
  auto gauge = [&](const char *name, const char *help, uint64_t v) {
    p.family(name, "gauge", help);
    p.sample(name, {}, v);
  };
  counter("rc_server_cache_hits_total", "Upload chunks found in the cache.",
          s.hits);
  counter("rc_server_cache_misses_total", "Upload chunks not in the cache.",
          s.misses);
  counter("rc_server_cache_saved_bytes_total",
          "Upload bytes not sent because the cache held them.", s.bytesSaved);
  counter("rc_server_cache_evicted_total", "Chunks evicted from the cache.",
          s.evicted);
  gauge("rc_server_cache_bytes", "Bytes the cache holds in memory.", s.bytes);
  gauge("rc_server_cache_capacity_bytes", "The cache's memory (--cache).",
        s.capacity);
  gauge("rc_server_cache_disk_bytes", "Bytes the cache's disk tier holds.",
        s.diskBytes);
}

void serverState(PrometheusText &p, const ServerFigures &f) {
  if (f.sessionThreads) {
    p.family("rc_server_session_threads", "gauge",
             "Session threads running (the server's workers).");
    p.sample("rc_server_session_threads", {}, *f.sessionThreads);
  }
  if (f.connectionsWaiting) {
    p.family("rc_server_connections_waiting", "gauge",
             "Connections waiting in the lobby for their first message.");
    p.sample("rc_server_connections_waiting", {}, *f.connectionsWaiting);
  }
  p.family("rc_server_auth_failures_total", "counter",
           "Failed authentications (wrong proofs, unknown key ids).");
  p.sample("rc_server_auth_failures_total", {}, f.authFailures);
  p.family("rc_server_gpu_state_lost", "gauge",
           "1 once a sticky GPU error made every context unusable (the "
           "server restarts).");
  p.sample("rc_server_gpu_state_lost", {}, uint64_t(f.gpuStateLost));
}

void workers(PrometheusText &p, const std::optional<WorkerPoolFigures> &w) {
  if (!w)
    return;
  p.family("rc_server_workers", "gauge",
           "Worker processes now (--isolation process), by state: starting, "
           "ready (warm), reserved for a client, busy with a session.");
  for (const char *state : {"starting", "ready", "reserved", "busy"}) {
    auto it = w->byState.find(state);
    p.sample("rc_server_workers", {{"state", state}},
             it == w->byState.end() ? uint64_t(0) : it->second);
  }
  p.family("rc_server_workers_warm", "gauge",
           "Idle workers kept ready (--warm-workers).");
  p.sample("rc_server_workers_warm", {}, w->warm);
  p.family("rc_server_workers_max", "gauge",
           "Workers at most, busy or not (--max-workers).");
  p.sample("rc_server_workers_max", {}, w->max);
  p.family("rc_server_workers_ended_total", "counter",
           "Worker processes that ended, by how: clean, gpu_state_lost (its "
           "session's sticky GPU error), failed (any other exit or signal).");
  for (const char *how : {"clean", "gpu_state_lost", "failed"}) {
    auto it = w->endedByHow.find(how);
    p.sample("rc_server_workers_ended_total", {{"how", how}},
             it == w->endedByHow.end() ? uint64_t(0) : it->second);
  }
}

} // namespace

ServerFigures serverFigures(ServerCore &core) {
  ServerFigures f;
  f.totals = core.metrics().totals();
  f.sessionsOpen = core.metrics().liveCount();
  f.deviceBytes = core.bytesInUse();
  if (core.budgetTable())
    f.budgets = core.budgetTable()->usage();
  if (core.contentCache())
    f.cache = core.contentCache()->stats();
  f.sessionThreads = core.sessionThreads();
  f.connectionsWaiting = core.waitingConnections();
  f.authFailures = core.authThrottle().failures();
  f.gpuStateLost = core.deviceLost();
  return f;
}

std::string serverExposition(const ServerFigures &f) {
  PrometheusText p;
  sessions(p, f);
  commands(p, f.totals);
  bytes(p, f.totals);
  memory(p, f);
  cache(p, f.cache);
  serverState(p, f);
  workers(p, f.workers);
  return p.text();
}

} // namespace rc::server
