// Device printf reaches the application's stdout in order with its own
// output, whether stdout is a pipe or a regular file, and also when the
// program returns without synchronizing (the Goodbye of the exit handler
// brings it, as CUDA prints at context teardown). The program
// (programs/device_printf.cpp) hosts rc-server on the test device, whose
// hooks write kernels' output where the CUDA driver does.
#include "child_process.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

std::string tempPath(const std::string &name) {
  char dir[] = "/tmp/rc-printf-XXXXXX";
  return std::string(mkdtemp(dir) ? dir : "/tmp") + "/" + name;
}

// The folder tempPath made for `path`, with what is in it.
void removeTempDir(const std::string &path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir != "/tmp")
    std::filesystem::remove_all(dir);
}

// The program's stdout when it is a regular file.
std::string stdoutToFile(const std::string &scenario, int *status) {
  std::string out = tempPath("stdout"), err = out + ".err";
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
      _exit(126);
    execl(RC_DEVICE_PRINTF_PROG, RC_DEVICE_PRINTF_PROG, scenario.c_str(),
          (char *)nullptr);
    _exit(127);
  }
  *status = rc::test::waitBounded(pid, 60);
  std::string errors = rc::test::readFile(err);
  EXPECT_EQ(errors, "") << "stderr of " << scenario;
  std::string printed = rc::test::readFile(out);
  removeTempDir(out);
  return printed;
}

// The program's stdout when it is a pipe (read to its end here).
std::string stdoutToPipe(const std::string &scenario, int *status) {
  int fds[2];
  if (pipe(fds) != 0)
    return "no pipe";
  std::string err = tempPath("stderr");
  pid_t pid = fork();
  if (pid == 0) {
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (e < 0 || dup2(fds[1], 1) < 0 || dup2(e, 2) < 0)
      _exit(126);
    close(fds[0]);
    close(fds[1]);
    execl(RC_DEVICE_PRINTF_PROG, RC_DEVICE_PRINTF_PROG, scenario.c_str(),
          (char *)nullptr);
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, size_t(n));
  close(fds[0]);
  *status = rc::test::waitBounded(pid, 60);
  EXPECT_EQ(rc::test::readFile(err), "") << "stderr of " << scenario;
  removeTempDir(err);
  return out;
}

std::string deviceLines(unsigned grid, unsigned lines) {
  std::string s;
  for (unsigned l = 0; l < lines; ++l)
    s += "device: grid " + std::to_string(grid) + " line " + std::to_string(l) +
         "\n";
  return s;
}

const std::string kSync = "host: before\n"
                          "host: after the launch\n" +
                          deviceLines(1, 2) + "host: after the sync\n";
const std::string kExit =
    "host: before\nhost: after the launch, returning\n" + deviceLines(7, 2);

std::string manyExpected() {
  std::string s, pending;
  for (unsigned i = 1; i <= 40; ++i) {
    pending += deviceLines(i, 3);
    s += "host: launched " + std::to_string(i) + "\n";
    if (i % 8 == 0) {
      s += pending;
      pending.clear();
    }
  }
  return s + deviceLines(99, 1);
}

class DevicePrintf : public testing::TestWithParam<bool> {
protected:
  std::string run(const std::string &scenario) {
    int status = -1;
    std::string out = GetParam() ? stdoutToFile(scenario, &status)
                                 : stdoutToPipe(scenario, &status);
    EXPECT_EQ(status, 0) << scenario << " printed:\n" << out;
    return out;
  }
};

TEST_P(DevicePrintf, LinesComeAtTheSyncBetweenTheHostsLines) {
  EXPECT_EQ(run("sync"), kSync);
}

TEST_P(DevicePrintf, WorkNeverSynchronizedPrintsAtExit) {
  EXPECT_EQ(run("exit"), kExit);
}

TEST_P(DevicePrintf, ManyLaunchesKeepTheirOrder) {
  EXPECT_EQ(run("many"), manyExpected());
}

INSTANTIATE_TEST_SUITE_P(Stdout, DevicePrintf, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool> &i) {
                           return i.param ? "File" : "Pipe";
                         });

} // namespace
