#include "isolation/isolated_server.h"
#include "admission/key_admission.h"
#include "gpu_sharing/gpu_sharing.h"
#include "isolation/front_door.h"
#include "isolation/worker_channel.h"
#include "isolation/worker_metrics.h"
#include "isolation/worker_pool.h"
#include "metrics/metrics_file_writer.h"
#include "metrics/metrics_http.h"
#include "metrics/server_exposition.h"
#include "rc/auth/key_file.h"
#include "rc/server/log.h"
#include "rc/server/service_notify.h"

#include <chrono>
#include <csignal>
#include <thread>

namespace rc::server {

namespace {
using Clock = std::chrono::steady_clock;
// How long the first worker may take to load the manifests and start.
constexpr int kFirstWorkerMs = 120000;
// How often a worker whose session runs looks whether it ended.
constexpr auto kWorkerPoll = std::chrono::milliseconds(50);
// How often a worker sends its session's counters (--metrics), as often as
// rc-server rewrites its metrics file.
constexpr auto kMetricsEvery = std::chrono::milliseconds(1000);
// How long a worker without a ticket waits for one before it looks at its
// listener again.
constexpr int kBetweenTicketsMs = 20;
} // namespace

int runSupervisor(const SupervisorOptions &options,
                  const ProcessSignals &signals) {
  std::vector<auth::Key> keys;
  std::string error;
  if (!options.authKeyFile.empty() &&
      !auth::loadKeyFile(options.authKeyFile, &keys, &error)) {
    logError({"startup_failed"}, "start-up failed: " + error);
    return 1;
  }
  // Tenants' sessions are counted here, from a client's reservation until
  // its worker ends; their memory by the workers, in one budget table.
  std::unique_ptr<TenantLedger> tenants;
  TenantQuotas quotas;
  const bool quoted = !options.quotasFile.empty();
  if (quoted && !quotas.load(options.quotasFile, keys, &error)) {
    logError({"startup_failed"}, "start-up failed: " + error);
    return 1;
  }
  // The budgets all workers charge: those of all sessions and the
  // tenants' memory quotas.
  std::unique_ptr<BudgetTable> budgets = BudgetTable::create(
      serverBudgetSpecs(options.limits, quoted ? &quotas : nullptr, keys),
      options.maxWorkers, &error);
  if (!budgets) {
    logError({"startup_failed"}, "start-up failed: " + error);
    return 1;
  }
  // Under MPS a worker serving a tenant with MPS bounds in its quota
  // starts with them in its environment (gpu_sharing.h).
  std::function<std::vector<std::pair<std::string, std::string>>(
      const std::string &)>
      tenantEnvironment;
  if (quoted && options.shareMpsServer)
    tenantEnvironment = [quotas,
                         gpus = visibleGpuCount()](const std::string &tenant) {
      return mpsLimitsEnvironment(quotas.of(tenant), gpus);
    };
  if (quoted)
    tenants = std::make_unique<TenantLedger>(std::move(quotas));
  std::unique_ptr<WorkerMetrics> metrics;
  std::unique_ptr<MetricsFileWriter> metricsWriter;
  if (!options.metricsFile.empty() || !options.metricsHost.empty())
    metrics = std::make_unique<WorkerMetrics>();
  if (!options.metricsFile.empty()) {
    metricsWriter =
        std::make_unique<MetricsFileWriter>(*metrics, options.metricsFile);
    if (!metricsWriter->start(&error)) {
      logError({"startup_failed"}, "start-up failed: " + error);
      return 1;
    }
  }
  WorkerPoolOptions poolOptions;
  poolOptions.command = options.workerCommand;
  poolOptions.listenUrl = options.listenUrl;
  poolOptions.warm = options.warmWorkers;
  poolOptions.max = options.maxWorkers;
  poolOptions.ticketMs = uint32_t(options.limits.ticketMs);
  poolOptions.unredeemedPerHolder = options.limits.reservationsPerTenant;
  poolOptions.released = [&tenants](const std::string &tenant) {
    if (tenants)
      tenants->closeSession(tenant);
  };
  poolOptions.budgets = budgets.get();
  poolOptions.metrics = metrics.get();
  poolOptions.shareMpsServer = options.shareMpsServer;
  poolOptions.tenantEnvironment = std::move(tenantEnvironment);
  WorkerPool pool(std::move(poolOptions));
  std::string summary;
  if (!pool.start(kFirstWorkerMs, &summary, &error)) {
    logError({"startup_failed"}, "start-up failed: " + error);
    return 1;
  }
  // Clients prove a key before the listener opens anything for them
  // (key_admission.h); their failures count apart from the Hello's.
  AuthThrottle admissionThrottle;
  transport::ListenOptions listenOptions = options.limits.listenOptions();
  listenOptions.admit = keyAdmission(keys, &admissionThrottle);
  std::unique_ptr<transport::Listener> listener =
      transport::listen(options.listenUrl, listenOptions, &error);
  if (!listener) {
    logError({"listen_failed"}, "cannot listen: " + error);
    return 1;
  }
  FrontDoor door(std::move(keys), options.limits, pool, tenants.get());
  // GET /metrics: the workers' reports summed (ended workers' last ones
  // included), the shared budget table's memory, the pool's state. Gone
  // before the door and the pool it reads.
  std::unique_ptr<MetricsHttpServer> metricsEndpoint;
  if (!options.metricsHost.empty()) {
    auto figures = [&] {
      ServerFigures f;
      WorkerReport sums = metrics->sums();
      f.totals = sums.totals;
      // Refused at the door: sessions opened and closed so, as a
      // one-process server counts them.
      if (uint64_t refused = door.refused()) {
        f.totals.opened += refused;
        f.totals.closedByReason["refused"] += refused;
      }
      f.workers = pool.figures();
      f.sessionsOpen = f.workers->byState["busy"];
      f.deviceBytes = sums.deviceBytes;
      f.budgets = budgets->usage();
      f.connectionsWaiting = door.waiting();
      f.authFailures = admissionThrottle.failures() + door.authFailures() +
                       sums.authFailures;
      return f;
    };
    metricsEndpoint = std::make_unique<MetricsHttpServer>(
        [figures] { return serverExposition(figures()); },
        options.metricsToken);
    if (!metricsEndpoint->start(options.metricsHost, options.metricsPort,
                                &error)) {
      logError({"startup_failed"}, "start-up failed: " + error);
      return 1;
    }
    logInfo(
        {"metrics_listening"},
        "metrics: GET http://" + metricsEndpoint->address() + "/metrics" +
            (options.metricsToken.empty() ? "" : " (bearer token required)"));
  }
  logInfo({"listening"},
          summary + "; listening on " + listener->address() +
              "; every session in a worker process of its own (" +
              std::to_string(options.warmWorkers) + " kept ready, at most " +
              std::to_string(options.maxWorkers) + ")");
  announceReady(listener->address());
  while (!signals.stop) {
    std::unique_ptr<transport::Connection> conn = listener->accept(200);
    if (conn)
      door.serve(std::move(conn));
  }
  announceStopping();
  listener.reset(); // clients that come now knock until their timeout
  if (signals.last == SIGTERM && options.drainMs > 0) {
    logInfo({"draining"},
            "draining: " + std::to_string(pool.workers()) +
                " worker processes finish their sessions within " +
                std::to_string(options.drainMs) +
                " ms; no new sessions (a second signal stops at once)");
    pool.stopSpawning(SIGTERM);
    auto deadline = Clock::now() + std::chrono::milliseconds(options.drainMs);
    while (signals.count == 1 && Clock::now() < deadline &&
           !pool.waitAllEnded(100)) {
    }
  }
  logInfo({"shutdown"}, "shutting down: " + std::to_string(pool.workers()) +
                            " worker processes");
  pool.stopSpawning(SIGINT);
  pool.waitAllEnded(2000); // the pool kills whatever is left
  return 0;
}

int runWorker(ServerCore &core, const WorkerOptions &options,
              const ProcessSignals &signals) {
  const ServerLimits &limits = options.limits;
  WorkerChannel channel(options.channelFd);
  std::string error;
  // The session's context now, while no client waits (cuCtxCreate and the
  // staging memory: most of a session's start otherwise).
  if (!core.prepareContext(&error)) {
    logError("cannot create a device context: " + error);
    return 1;
  }
  transport::ListenOptions listenOptions = limits.listenOptions();
  listenOptions.admit = core.admission();
  std::unique_ptr<transport::Listener> listener =
      transport::listen(options.listenUrl, listenOptions, &error);
  if (!listener) {
    logError({"listen_failed"}, "cannot listen: " + error);
    return 1;
  }
  if (!channel.send(readyMessage(listener->address(), core.summary())))
    return 0; // the supervisor is gone
  logDebug({"worker_ready"}, "ready on " + listener->address());
  // With --metrics: the session's counters to the supervisor, about once a
  // second and once more at its end; with --metrics-listen its totals (the
  // Hellos it refused included) as often.
  Clock::time_point lastMetrics{};
  auto sendMetrics = [&] {
    if (options.sendTotals) {
      WorkerReport report;
      report.totals = core.metrics().totals();
      report.deviceBytes = core.bytesInUse();
      report.authFailures = core.authThrottle().failures();
      if (report.totals.opened || report.authFailures)
        channel.send(totalsMessage(report));
    }
    uint64_t served = core.ticket().redeemedBy();
    std::string json = served ? core.metrics().sessionJson(served) : "";
    if (options.sendMetrics && !json.empty())
      channel.send(metricsMessage(json));
    lastMetrics = Clock::now();
  };
  // Reservations until one is redeemed: each ticket lapses unless its
  // holder comes in time, and the worker waits for the next.
  bool announced = false; // "redeemed" went to the supervisor
  Clock::time_point drainEnd{};
  for (;;) {
    if (signals.stop) {
      if (drainEnd == Clock::time_point{})
        drainEnd = Clock::now() + std::chrono::milliseconds(options.drainMs);
      if (signals.last != SIGTERM || signals.count > 1 ||
          !core.ticket().redeemed() || Clock::now() >= drainEnd)
        break;
    }
    if (core.ticket().redeemed()) {
      listener.reset(); // this process serves no one else
      if (!announced) { // its quota now counts a session, no reservation
        channel.send(kRedeemedMessage);
        announced = true;
      }
      if (core.liveSessions() == 0)
        break;
      if (Clock::now() - lastMetrics >= kMetricsEvery)
        sendMetrics();
      std::this_thread::sleep_for(kWorkerPoll);
      continue;
    }
    if (core.ticket().lapseIfDue(Clock::now())) {
      logDebug("its ticket lapsed: nobody redeemed it in time");
      if (!channel.send(kLapsedMessage))
        break; // the supervisor is gone
    }
    if (!core.ticket().expected()) {
      // Between reservations: the next ticket comes from the supervisor
      // (taken the moment it does), and a client whose ticket lapsed is
      // told at once to start over.
      std::string message;
      TicketOrder order;
      WorkerChannel::Got got = channel.receive(&message, kBetweenTicketsMs);
      if (got == WorkerChannel::Got::Closed)
        break; // the supervisor went while it did not need this worker
      if (got == WorkerChannel::Got::Message) {
        if (!parseTicketMessage(message, &order)) {
          logError("unexpected message from the supervisor: " + message);
          continue;
        }
        core.numberSessionsFrom(order.sessionId);
        core.ticket().expect(
            {order.ticket, order.holder,
             Clock::now() + std::chrono::milliseconds(order.lifeMs)});
        continue;
      }
      if (std::unique_ptr<transport::Connection> conn = listener->accept(0))
        core.serve(std::move(conn));
      continue;
    }
    // The client connects anew and says Hello (and answers a challenge).
    if (std::unique_ptr<transport::Connection> conn = listener->accept(50))
      core.serve(std::move(conn));
  }
  core.stop();
  sendMetrics(); // its last word: the session closed, and why
  if (core.deviceLost()) {
    logInfo({"gpu_state_lost"}, "its session lost the GPU state (" +
                                    core.deviceLostReason() +
                                    "); this process ends with it");
    return 3;
  }
  return 0;
}

} // namespace rc::server
