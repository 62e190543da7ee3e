#include "child_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace rc::test {

std::string readFile(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int freeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

pid_t startChild(const std::vector<std::string> &argv,
                 const std::vector<std::string> &env,
                 const std::string &outPath) {
  pid_t pid = fork();
  if (pid == 0) {
    for (const std::string &e : env)
      putenv(strdup(e.c_str()));
    FILE *f = freopen(outPath.c_str(), "w", stdout);
    (void)f;
    dup2(fileno(stdout), 2);
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int waitBounded(pid_t pid, int seconds) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

ChildResult runChild(const std::vector<std::string> &argv,
                     const std::vector<std::string> &env,
                     const std::string &outPath, int timeoutSeconds) {
  auto start = std::chrono::steady_clock::now();
  ChildResult r;
  r.status = waitBounded(startChild(argv, env, outPath), timeoutSeconds);
  r.output = readFile(outPath);
  if (r.status == -1 && std::chrono::steady_clock::now() - start >=
                            std::chrono::seconds(timeoutSeconds))
    r.output += "\n[killed after " + std::to_string(timeoutSeconds) + " s]";
  return r;
}

} // namespace rc::test
