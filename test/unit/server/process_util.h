// Test helpers around processes: a child with captured output (the
// rc-server binary) and a free loopback tcp port.
#ifndef RC_SERVER_PROCESS_UTIL_H
#define RC_SERVER_PROCESS_UTIL_H

#include "child_process.h"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace rc::server::test {

// The rc-server binary: RC_SERVER_BIN from the environment (a carried
// build), else the one this build made.
inline std::string serverBin() {
  const char *env = std::getenv("RC_SERVER_BIN");
  return env ? env : RC_SERVER_BIN;
}

// A child process with its stdout+stderr captured.
struct Child {
  pid_t pid = -1;
  int out = -1;
  std::string text;

  // `inChild` runs in the child before it executes `bin`.
  explicit Child(const std::vector<std::string> &args,
                 const std::string &bin = serverBin(),
                 const std::function<void()> &inChild = nullptr) {
    int fds[2];
    if (pipe(fds) != 0)
      return;
    pid = fork();
    if (pid == 0) {
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      close(fds[0]);
      if (inChild)
        inChild();
      std::vector<char *> argv;
      argv.push_back(const_cast<char *>(bin.c_str()));
      for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    out = fds[0];
  }
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (out >= 0)
      close(out);
  }
  // Reads output until `needle` shows up or the timeout passes.
  bool waitFor(const std::string &needle, int timeoutMs) {
    auto end =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (text.find(needle) == std::string::npos) {
      int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                         end - std::chrono::steady_clock::now())
                         .count());
      if (left <= 0)
        return false;
      pollfd p{out, POLLIN, 0};
      if (poll(&p, 1, left) <= 0)
        return false;
      char buf[4096];
      ssize_t n = read(out, buf, sizeof buf);
      if (n <= 0)
        return text.find(needle) != std::string::npos;
      text.append(buf, size_t(n));
    }
    return true;
  }
  int wait() {
    waitFor("\x01never", 10000); // drain until EOF
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

inline int freePort() { return rc::test::freeLoopbackPort(); }

// Where a test server of `transport` ("tcp" or "shm") listens: a free
// loopback port, or an shm name (`name` + this process + a count) that no
// other test of any process takes.
inline std::string freshUrl(const std::string &transport,
                            const std::string &name) {
  static int serial = 0;
  if (transport == "tcp")
    return "tcp://127.0.0.1:" + std::to_string(freePort());
  return "shm://" + name + "_" + std::to_string(getpid()) + "_" +
         std::to_string(serial++);
}

} // namespace rc::server::test

#endif
