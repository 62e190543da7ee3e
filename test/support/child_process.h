// Processes in tests: a program started with extra environment and its
// stdout+stderr in a file, every wait bounded; a file's text; a free
// loopback tcp port. Shared by the runtime's and cuBLAS's integration
// tests, rc-server's and the transport's.
#ifndef RC_TEST_CHILD_PROCESS_H
#define RC_TEST_CHILD_PROCESS_H

#include <sys/types.h>

#include <string>
#include <vector>

namespace rc::test {

// The whole file, or "" when it cannot be read.
std::string readFile(const std::string &path);

// A loopback tcp port nobody listens on (bound, then released).
int freeLoopbackPort();

// Starts argv[0] with `argv`, `env` ("NAME=value") added to its
// environment, stdout and stderr into `outPath`. Its pid.
pid_t startChild(const std::vector<std::string> &argv,
                 const std::vector<std::string> &env,
                 const std::string &outPath);

// Waits up to `seconds` for `pid`, then kills it. Its exit code, or -1
// when it was killed (by this or by a signal).
int waitBounded(pid_t pid, int seconds);

struct ChildResult {
  int status = -1; // exit code, or -1 when killed
  std::string output;
};

// startChild, waitBounded, and its output (with a note when killed).
ChildResult runChild(const std::vector<std::string> &argv,
                     const std::vector<std::string> &env,
                     const std::string &outPath, int timeoutSeconds);

} // namespace rc::test

#endif
