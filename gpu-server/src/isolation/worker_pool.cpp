#include "isolation/worker_pool.h"
#include "rc/auth/proof.h"
#include "rc/server/log.h"
#include "rc/server/session_ticket.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace rc::server {

namespace {
// How often the monitor looks for ended workers when no message comes.
constexpr int kMonitorMs = 50;
// After a worker ended before it was ready (a start-up error), the next
// start waits this long, so a broken set-up does not spin.
constexpr auto kRetryAfterFailure = std::chrono::seconds(1);
// The channel's number in a worker: the first after stdin, stdout, stderr;
// the budget table's after it.
constexpr int kChildChannelFd = 3;
constexpr int kChildBudgetsFd = 4;
// A reserved worker says when its ticket lapsed; one that has not said so
// this long after (stuck, or its word lost) no longer counts against its
// holder's unredeemed reservations.
constexpr auto kLapseGrace = std::chrono::seconds(1);
// A holder at its cap of unredeemed reservations is told to retry within
// this many milliseconds.
constexpr int64_t kHolderRetryMs = 50;
// Every worker busy at --max-workers: the client starts over after this
// long, for as long as its RC_CONNECT_TIMEOUT_MS allows. A session may end
// meanwhile, and behind a load balancer (a Kubernetes Service) the new
// connection may reach another server with room (docs/design/pool.md).
constexpr uint32_t kBusyRetryMs = 250;
// What a session's fatal fault did to the others: with a context of its
// own per process nothing; under MPS, NVIDIA documents that it reaches
// every client of the MPS server on that GPU.
constexpr const char *kNoOtherSession = "no other session is affected";
constexpr const char *kMpsFaultReach =
    "the other sessions on its GPU share its MPS server and may have lost "
    "their GPU state too";

std::string describeStatus(int status) {
  if (WIFEXITED(status))
    return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}
} // namespace

WorkerPool::WorkerPool(WorkerPoolOptions options)
    : options_(std::move(options)) {
  if (options_.budgets)
    for (int row = options_.max - 1; row >= 0; --row)
      freeRows_.push_back(row);
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    spawning_ = false;
  }
  cv_.notify_all();
  if (monitor_.joinable())
    monitor_.join();
  for (Worker &w : workers_) {
    kill(w.pid, SIGKILL);
    waitpid(w.pid, nullptr, 0);
  }
}

std::string WorkerPool::workerUrl(uint64_t n) const {
  const std::string &url = options_.listenUrl;
  if (url.rfind("tcp://", 0) == 0)
    return url.substr(0, url.rfind(':')) + ":0"; // any free port, same host
  return url + ".w" + std::to_string(getpid()) + "-" + std::to_string(n);
}

std::string WorkerPool::dedicatedTenant(const Request &request) const {
  if (request.tenant.empty() || !options_.tenantEnvironment ||
      options_.tenantEnvironment(request.tenant).empty())
    return "";
  return request.tenant;
}

bool WorkerPool::spawnLocked(std::string *error, const std::string &tenant) {
  int fds[2];
  if (!WorkerChannel::pair(fds, error))
    return false;
  // The environment, for execve after fork: made now, as the child may
  // call only async-signal-safe functions.
  std::vector<std::string> env;
  std::vector<char *> envp;
  if (!tenant.empty()) {
    auto extra = options_.tenantEnvironment(tenant);
    for (char **e = environ; *e; ++e) {
      bool replaced = false;
      for (const auto &[name, value] : extra)
        replaced |=
            std::strncmp(*e, (name + "=").c_str(), name.size() + 1) == 0;
      if (!replaced)
        env.push_back(*e);
    }
    for (const auto &[name, value] : extra)
      env.push_back(name + "=" + value);
    for (std::string &e : env)
      envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  std::vector<std::string> args = options_.command;
  args.push_back("--listen=" + workerUrl(++spawned_));
  args.push_back("--worker-channel=" + std::to_string(kChildChannelFd));
  int row = -1, budgetsFd = -1;
  if (options_.budgets) {
    if (freeRows_.empty()) { // more workers than rows: a bug, not a client's
      *error = "no budget table row is free for another worker";
      close(fds[0]);
      close(fds[1]);
      return false;
    }
    row = freeRows_.back();
    budgetsFd = options_.budgets->fd();
    args.push_back("--worker-budgets=" + std::to_string(kChildBudgetsFd) + ":" +
                   std::to_string(row));
  }
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  const int maxFd = int(std::min<rlim_t>(files.rlim_cur, 1 << 20));
  pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls until exec: this process has threads.
    // The worker gets its channel and stdio, nothing else of the
    // supervisor's: not the listening socket (it would keep the address
    // taken after the supervisor is gone), nor a client's connection.
    int lastFd = kChildChannelFd;
    if (budgetsFd >= 0) {
      // The table first: the channel's dup2 may land on its number.
      if (budgetsFd == kChildChannelFd || fds[1] == kChildBudgetsFd) {
        budgetsFd = fcntl(budgetsFd, F_DUPFD, kChildBudgetsFd + 1);
        fds[1] = fcntl(fds[1], F_DUPFD, kChildBudgetsFd + 1);
      }
      if (budgetsFd == kChildBudgetsFd)
        fcntl(budgetsFd, F_SETFD, 0);
      else
        dup2(budgetsFd, kChildBudgetsFd);
      lastFd = kChildBudgetsFd;
    }
    if (fds[1] == kChildChannelFd)
      fcntl(fds[1], F_SETFD, 0);
    else
      dup2(fds[1], kChildChannelFd); // the copy has no close-on-exec
    if (close_range(lastFd + 1, ~0U, 0) != 0)
      for (int fd = lastFd + 1; fd < maxFd; ++fd)
        close(fd);
    if (envp.empty())
      execv("/proc/self/exe", argv.data());
    else
      execve("/proc/self/exe", argv.data(), envp.data());
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    *error =
        std::string("cannot start a worker process: ") + std::strerror(errno);
    return false;
  }
  Worker w;
  w.pid = pid;
  w.startedFor = tenant;
  if (row >= 0) {
    w.row = row;
    freeRows_.pop_back();
  }
  w.channel = std::make_unique<WorkerChannel>(fds[0]);
  workers_.push_back(std::move(w));
  return true;
}

bool WorkerPool::start(int timeoutMs, std::string *summary,
                       std::string *error) {
  if (options_.listenUrl.rfind("shm://", 0) == 0 &&
      workerUrl(UINT32_MAX).size() - 6 > 80) {
    *error = "the shm name of " + options_.listenUrl +
             " is too long for its workers' names (" + workerUrl(UINT32_MAX) +
             "): use at most 60 characters";
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int i = 0; i < std::max(options_.warm, 1); ++i)
      if (!spawnLocked(error))
        return false;
  }
  monitor_ = std::thread([this] { monitor(); });
  std::unique_lock<std::mutex> lock(mu_);
  bool ready = cv_.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] {
    return everReady_ || (workers_.empty() && !lastFailure_.empty());
  });
  if (everReady_) {
    *summary = firstSummary_;
    return true;
  }
  *error = ready ? "the first worker process ended before it was ready (" +
                       lastFailure_ + "; its error is above)"
                 : "no worker process was ready within " +
                       std::to_string(timeoutMs) + " ms";
  return false;
}

bool WorkerPool::holderMayReserveLocked(const std::string &holder,
                                        std::string *why,
                                        uint32_t *retryMs) const {
  int held = 0;
  const Clock::time_point now = Clock::now();
  Clock::time_point first = Clock::time_point::max();
  for (const Worker &w : workers_)
    if (w.state == State::Reserved && w.request.holder == holder &&
        w.lapses + kLapseGrace > now) {
      ++held;
      first = std::min(first, w.lapses);
    }
  if (held < options_.unredeemedPerHolder)
    return true;
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(first - now);
  // They are redeemed any moment (an honest client's several programs
  // starting at once) or lapse by then: look again soon.
  *retryMs = uint32_t(std::clamp<int64_t>(left.count() + 1, 1, kHolderRetryMs));
  const char *who = holder.rfind("key ", 0) == 0   ? "key"
                    : holder.rfind("uid ", 0) == 0 ? "user"
                                                   : "host";
  *why = std::string("this client's ") + who + " holds " +
         std::to_string(held) +
         " reservations of a worker process it has not used yet, as many "
         "as rc-server allows (RC_SERVER_RESERVATIONS_PER_TENANT); retry in " +
         std::to_string(*retryMs) + " ms";
  return false;
}

bool WorkerPool::reserve(int timeoutMs, const Request &request,
                         Reservation *out, std::string *why,
                         uint32_t *retryMs) {
  *retryMs = 0;
  TicketOrder order;
  order.ticket.resize(SessionTicket::kBytes);
  order.lifeMs = options_.ticketMs;
  order.holder = request.holder;
  if (!auth::randomBytes(order.ticket.data(), order.ticket.size())) {
    *why = "rc-server cannot draw a random ticket";
    return false;
  }
  const std::string dedicated = dedicatedTenant(request);
  std::unique_lock<std::mutex> lock(mu_);
  // The monitor starts a worker for each waiting call (refill()).
  int &waiting = dedicated.empty() ? waiting_ : waitingFor_[dedicated];
  ++waiting;
  auto doneWaiting = [&] {
    if (--waiting == 0 && !dedicated.empty())
      waitingFor_.erase(dedicated);
  };
  auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  bool found = false;
  while (!found && !stopping_ && spawning_) {
    // Checked again after every wait: the holder's other Hellos wait too.
    if (!holderMayReserveLocked(request.holder, why, retryMs)) {
      doneWaiting();
      return false;
    }
    for (Worker &w : workers_) {
      if (w.state != State::Ready || !w.channelOpen ||
          w.startedFor != dedicated)
        continue;
      w.state = State::Reserved; // even if the send fails: do not retry it
      w.request = request;
      w.lapses = Clock::now() + std::chrono::milliseconds(options_.ticketMs);
      order.sessionId = nextSession_++;
      if (w.channel->send(ticketMessage(order))) {
        out->pid = w.pid;
        out->address = w.address;
        out->ticket = order.ticket;
        found = true;
        break;
      }
    }
    if (!found && cv_.wait_until(lock, deadline) == std::cv_status::timeout)
      break;
  }
  doneWaiting();
  if (found)
    return true;
  // How many workers there are, and how many others use, is the
  // operator's to know, not a client's.
  if (stopping_ || !spawning_)
    *why = "rc-server is shutting down";
  else if (int(workers_.size()) >= options_.max) {
    *why = "every worker process is busy (rc-server --max-workers); retry "
           "when a session ends";
    *retryMs = kBusyRetryMs;
  } else
    *why = "no worker process was ready within " + std::to_string(timeoutMs) +
           " ms" + (lastFailure_.empty() ? "" : " (" + lastFailure_ + ")");
  return false;
}

void WorkerPool::releaseLocked(Worker &w) {
  if (!w.request.tenant.empty() && options_.released)
    options_.released(w.request.tenant);
  w.request = Request{};
}

void WorkerPool::stopSpawning(int sig) {
  std::lock_guard<std::mutex> lock(mu_);
  spawning_ = false;
  for (Worker &w : workers_)
    kill(w.pid, sig);
  cv_.notify_all();
}

bool WorkerPool::waitAllEnded(int timeoutMs) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                      [&] { return workers_.empty(); });
}

size_t WorkerPool::workers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return workers_.size();
}

WorkerPoolFigures WorkerPool::figures() const {
  WorkerPoolFigures f;
  f.warm = uint64_t(std::max(options_.warm, 0));
  f.max = uint64_t(options_.max);
  std::lock_guard<std::mutex> lock(mu_);
  for (const Worker &w : workers_) {
    const char *state = w.state == State::Starting   ? "starting"
                        : w.state == State::Ready    ? "ready"
                        : w.state == State::Reserved ? "reserved"
                                                     : "busy";
    ++f.byState[state];
  }
  f.endedByHow["clean"] = endedClean_;
  f.endedByHow["gpu_state_lost"] = endedGpuLost_;
  f.endedByHow["failed"] = endedFailed_;
  return f;
}

void WorkerPool::monitor() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_)
        return;
    }
    readChannels();
    reapEnded();
    refill();
  }
}

// Waits up to kMonitorMs for any worker's message and takes them all. Only
// this thread adds to or removes from workers_ after start(), so the fds
// stay valid while it waits without the lock.
void WorkerPool::readChannels() {
  std::vector<pollfd> fds;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Worker &w : workers_)
      if (w.channelOpen)
        fds.push_back({w.channel->fd(), POLLIN, 0});
  }
  if (fds.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kMonitorMs));
    return;
  }
  if (poll(fds.data(), fds.size(), kMonitorMs) <= 0)
    return;
  std::lock_guard<std::mutex> lock(mu_);
  for (Worker &w : workers_)
    takeMessagesLocked(w);
}

void WorkerPool::takeMessagesLocked(Worker &w) {
  if (!w.channelOpen)
    return;
  std::string message, address, summary, session;
  WorkerReport report;
  WorkerChannel::Got got;
  while ((got = w.channel->receive(&message, 0)) ==
         WorkerChannel::Got::Message) {
    if (w.state == State::Reserved && message == kRedeemedMessage) {
      w.state = State::Busy;
    } else if (w.state == State::Reserved && message == kLapsedMessage) {
      // Its client did not come in time: the worker serves the next one.
      logDebug({"worker_ready"}, "worker " + std::to_string(w.pid) +
                                     ": its ticket lapsed unused; ready again");
      releaseLocked(w);
      w.state = State::Ready;
      cv_.notify_all();
    } else if (w.state == State::Busy && options_.metrics &&
               parseMetricsMessage(message, &session)) {
      options_.metrics->update(w.pid, session);
    } else if (options_.metrics && parseTotalsMessage(message, &report)) {
      // Sent in any state: Hellos it refused before its session count.
      options_.metrics->report(w.pid, report);
    } else if (w.state == State::Starting &&
               parseReadyMessage(message, &address, &summary)) {
      w.state = State::Ready;
      w.address = address;
      if (!everReady_)
        firstSummary_ = summary;
      everReady_ = true;
      cv_.notify_all();
    } else {
      logError({"worker_protocol"},
               "worker " + std::to_string(w.pid) +
                   " sent an unexpected message: " + message);
    }
  }
  if (got == WorkerChannel::Got::Closed)
    w.channelOpen = false;
}

void WorkerPool::reapEnded() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = workers_.begin(); it != workers_.end();) {
    int status = 0;
    if (waitpid(it->pid, &status, WNOHANG) != it->pid) {
      ++it;
      continue;
    }
    takeMessagesLocked(*it); // what it said before it went
    std::string how = describeStatus(status);
    bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    bool gpuLost = WIFEXITED(status) && WEXITSTATUS(status) == 3;
    ++(clean ? endedClean_ : gpuLost ? endedGpuLost_ : endedFailed_);
    if (it->state == State::Starting) {
      lastFailure_ = "worker " + std::to_string(it->pid) + " ended with " + how;
      nextSpawn_ = Clock::now() + kRetryAfterFailure;
      if (everReady_)
        logError({"worker_ended"}, lastFailure_ + " before it was ready");
    } else if (it->state == State::Busy && WIFEXITED(status) &&
               WEXITSTATUS(status) == 3) {
      logInfo({"worker_ended"},
              "worker " + std::to_string(it->pid) +
                  " ended after its session lost the GPU state; " +
                  (options_.shareMpsServer ? kMpsFaultReach : kNoOtherSession));
      if (options_.shareMpsServer)
        retireIdleLocked();
    } else if (it->state != State::Ready && !clean) {
      logError(
          {"worker_ended"},
          "worker " + std::to_string(it->pid) + " ended with " + how +
              ": its session is lost; " +
              (options_.shareMpsServer ? kMpsFaultReach : kNoOtherSession));
      if (options_.shareMpsServer)
        retireIdleLocked();
    } else if (!clean) {
      logError({"worker_ended"},
               "idle worker " + std::to_string(it->pid) + " ended with " + how);
    } else {
      logDebug({"worker_ended"},
               "worker " + std::to_string(it->pid) + " ended (" + how + ")");
    }
    releaseLocked(*it);
    if (options_.metrics)
      options_.metrics->ended(it->pid, how, it->state == State::Busy);
    if (it->row >= 0) { // what it held, had it no time to give it back
      options_.budgets->releaseHolder(it->row);
      freeRows_.push_back(it->row);
    }
    it = workers_.erase(it);
    cv_.notify_all();
  }
}

void WorkerPool::retireIdleLocked() {
  int retired = 0;
  for (Worker &w : workers_)
    if (w.state == State::Starting || w.state == State::Ready) {
      kill(w.pid, SIGTERM);
      ++retired;
    }
  if (retired > 0)
    logInfo(std::to_string(retired) +
            " idle workers end and fresh ones start; the MPS server takes "
            "new clients once every client the fault reached has ended");
}

// Keeps `warm` idle workers (more while clients wait for one), within max.
void WorkerPool::refill() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!spawning_ || Clock::now() < nextSpawn_)
    return;
  auto idle = [&](const std::string &tenant) {
    return int(
        std::count_if(workers_.begin(), workers_.end(), [&](const Worker &w) {
          return w.startedFor == tenant &&
                 (w.state == State::Starting || w.state == State::Ready);
        }));
  };
  auto fill = [&](const std::string &tenant, int wanted) {
    while (idle(tenant) < wanted && int(workers_.size()) < options_.max) {
      std::string error;
      if (!spawnLocked(&error, tenant)) {
        logError(error);
        nextSpawn_ = Clock::now() + kRetryAfterFailure;
        return false;
      }
    }
    return true;
  };
  if (!fill("", std::max(options_.warm, waiting_)))
    return;
  for (const auto &[tenant, waiting] : waitingFor_)
    if (!fill(tenant, waiting))
      return;
}

} // namespace rc::server
