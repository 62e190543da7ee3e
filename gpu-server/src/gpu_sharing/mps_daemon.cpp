#include "gpu_sharing/mps_daemon.h"
#include "rc/server/log.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace rc::server {

namespace {
using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(20);
// How often the monitor looks whether the daemon still runs.
constexpr auto kMonitorEvery = std::chrono::milliseconds(100);
// What of the daemon's own output an error quotes.
constexpr size_t kLastWordsBytes = 600;

std::string describeStatus(int status) {
  if (WIFEXITED(status))
    return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

// Waits up to `timeout` for `pid` to end; true (and *status) once it has.
bool waitEnded(pid_t pid, std::chrono::milliseconds timeout, int *status) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    pid_t got = waitpid(pid, status, WNOHANG);
    if (got == pid || (got < 0 && errno == ECHILD))
      return true;
    if (Clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(kPoll);
  }
}

// Strings that outlive a fork, for execve in the child, which may call only
// async-signal-safe functions.
struct ExecArgs {
  std::vector<std::string> args, env;
  std::vector<char *> argv, envp;
  void seal() {
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string &e : env)
      envp.push_back(e.data());
    envp.push_back(nullptr);
  }
};

// This process's environment, with the MPS client variables replaced by
// `extra`.
std::vector<std::string>
environmentWith(const std::vector<std::pair<std::string, std::string>> &extra) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    std::string entry = *e;
    bool replaced = false;
    for (const auto &[name, value] : extra)
      replaced |= entry.rfind(name + "=", 0) == 0;
    if (!replaced)
      env.push_back(entry);
  }
  for (const auto &[name, value] : extra)
    env.push_back(name + "=" + value);
  return env;
}

// The child's side of a fork: stdin from `inFd` (or /dev/null), stdout and
// stderr to `outFile` (or /dev/null), then `exec`.
[[noreturn]] void execChild(ExecArgs &exec, int inFd, const char *outFile) {
  int in = inFd >= 0 ? inFd : open("/dev/null", O_RDONLY);
  int out = open(outFile ? outFile : "/dev/null", O_WRONLY | O_CREAT | O_APPEND,
                 0600);
  if (in >= 0)
    dup2(in, 0);
  if (out >= 0) {
    dup2(out, 1);
    dup2(out, 2);
  }
  if (close_range(3, ~0U, 0) != 0)
    for (int fd = 3; fd < 1024; ++fd)
      close(fd);
  execve(exec.argv[0], exec.argv.data(), exec.envp.data());
  _exit(127);
}
} // namespace

std::string findOnPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty())
      continue;
    std::string candidate = dir + "/" + name;
    struct stat st{};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

MpsDaemon::MpsDaemon(MpsDaemonOptions options) : options_(std::move(options)) {}

MpsDaemon::~MpsDaemon() { stop(); }

std::vector<std::pair<std::string, std::string>>
MpsDaemon::clientEnvironment() const {
  return {{"CUDA_MPS_PIPE_DIRECTORY", pipeDir_},
          {"CUDA_MPS_LOG_DIRECTORY", logDir_}};
}

int MpsDaemon::restarts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return restarts_;
}

bool MpsDaemon::start(std::string *why) {
  std::string pattern = options_.parentDir + "/rc-mps.XXXXXX";
  if (!mkdtemp(pattern.data())) { // mode 0700
    *why = "cannot make a directory for the MPS daemon under " +
           options_.parentDir + ": " + std::strerror(errno);
    return false;
  }
  dir_ = pattern;
  pipeDir_ = dir_ + "/pipe";
  logDir_ = dir_ + "/log";
  outputFile_ = dir_ + "/control.out";
  if (mkdir(pipeDir_.c_str(), 0700) != 0 || mkdir(logDir_.c_str(), 0700) != 0) {
    *why = "cannot make the MPS daemon's directories in " + dir_ + ": " +
           std::strerror(errno);
    stop();
    return false;
  }
  if (!launch(why)) {
    stop();
    return false;
  }
  monitor_ = std::thread([this] { monitor(); });
  return true;
}

bool MpsDaemon::launch(std::string *why) {
  // A dead daemon's control pipe would pass for the new one's.
  unlink((pipeDir_ + "/control").c_str());
  ExecArgs exec;
  exec.args = {options_.control, "-f"}; // foreground: our child, not a daemon
  exec.env = environmentWith(clientEnvironment());
  exec.seal();
  pid_t pid = fork();
  if (pid == 0) {
    // Should rc-server be killed outright, the daemon goes with it (when
    // the thread that started it ends, to be exact: the monitor quits it
    // before it ends).
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    // Its own process group: a terminal's Ctrl-C, meant for rc-server, must
    // not end it before rc-server's sessions and its `quit`.
    setpgid(0, 0);
    execChild(exec, -1, outputFile_.c_str());
  }
  if (pid < 0) {
    *why = std::string("cannot start ") + options_.control + ": " +
           std::strerror(errno);
    return false;
  }
  if (!waitUntilReady(pid, why))
    return false;
  std::lock_guard<std::mutex> lock(mu_);
  pid_ = pid;
  return true;
}

bool MpsDaemon::waitUntilReady(pid_t pid, std::string *why) {
  const std::string control = pipeDir_ + "/control";
  auto deadline =
      Clock::now() + std::chrono::milliseconds(options_.readyTimeoutMs);
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      *why = options_.control + " -f ended at start (" +
             describeStatus(status) + ")" + lastWords();
      return false;
    }
    struct stat st{};
    if (stat(control.c_str(), &st) == 0)
      return true;
    if (Clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(kPoll);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  *why = options_.control + " -f opened no control pipe in " + pipeDir_ +
         " within " + std::to_string(options_.readyTimeoutMs) + " ms" +
         lastWords();
  return false;
}

std::string MpsDaemon::lastWords() const {
  std::string text;
  for (const std::string &file : {outputFile_, logDir_ + "/control.log"}) {
    std::ifstream in(file);
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
    if (!text.empty())
      break;
  }
  if (text.size() > kLastWordsBytes)
    text = "..." + text.substr(text.size() - kLastWordsBytes);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  for (char &c : text)
    if (c == '\n')
      c = '|';
  return text.empty() ? "" : ": " + text;
}

bool MpsDaemon::quit() {
  pid_t daemon;
  {
    std::lock_guard<std::mutex> lock(mu_);
    daemon = pid_;
    pid_ = -1;
  }
  if (daemon < 0)
    return true;
  // `quit` on the control pipe, through the control program as a client.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) == 0) {
    ExecArgs exec;
    exec.args = {options_.control};
    exec.env = environmentWith(clientEnvironment());
    exec.seal();
    std::string out = outputFile_;
    pid_t client = fork();
    if (client == 0)
      execChild(exec, fds[0], out.c_str());
    close(fds[0]);
    if (client > 0) {
      const char command[] = "quit\n";
      ssize_t wrote = write(fds[1], command, sizeof command - 1);
      (void)wrote; // a client that is gone already: the timeout below
      close(fds[1]);
      int status = 0;
      if (!waitEnded(client, std::chrono::milliseconds(options_.quitTimeoutMs),
                     &status)) {
        kill(client, SIGKILL);
        waitpid(client, nullptr, 0);
      }
    } else {
      close(fds[1]);
    }
  }
  int status = 0;
  if (waitEnded(daemon, std::chrono::milliseconds(options_.quitTimeoutMs),
                &status))
    return true;
  logError("the MPS control daemon did not quit within " +
           std::to_string(options_.quitTimeoutMs) + " ms: killing it");
  kill(daemon, SIGKILL);
  waitpid(daemon, nullptr, 0);
  return false;
}

void MpsDaemon::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (monitor_.joinable())
    monitor_.join(); // it quits the daemon before it ends
  quit();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    dir_.clear();
  }
}

void MpsDaemon::monitor() {
  Clock::time_point lastStart = Clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, kMonitorEvery, [&] { return stopping_; });
    if (stopping_)
      break;
    int status = 0;
    if (pid_ >= 0 && waitpid(pid_, &status, WNOHANG) != pid_)
      continue;
    if (pid_ >= 0)
      logError("the MPS control daemon ended (" + describeStatus(status) + ")" +
               lastWords() + "; starting it again");
    pid_ = -1;
    // Not sooner than restartDelayMs after the last start.
    auto earliest =
        lastStart + std::chrono::milliseconds(options_.restartDelayMs);
    if (cv_.wait_until(lock, earliest, [&] { return stopping_; }))
      break;
    lastStart = Clock::now();
    lock.unlock();
    std::string why;
    bool started = launch(&why);
    lock.lock();
    if (started) {
      ++restarts_;
      logInfo("the MPS control daemon runs again; new sessions share the "
              "GPU through it");
    } else {
      logError("cannot start the MPS control daemon again: " + why +
               " (trying again)");
    }
  }
  lock.unlock();
  // Here, not after this thread: a daemon it started again gets SIGTERM
  // when it ends (PR_SET_PDEATHSIG), and would not quit in order.
  quit();
}

} // namespace rc::server
