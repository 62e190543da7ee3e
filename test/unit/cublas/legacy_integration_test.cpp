// cuBLAS's legacy API (cublas.h) end to end: rc-server --test-device over
// shm and a plain C++ program linked to librc_cudart + librc_cublas
// (programs/cublas_legacy_calls.cpp). Every wait is bounded; the server is
// killed by pid when the test ends.
#include "child_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using rc::test::readFile;
using rc::test::waitBounded;

// rc-server --test-device on its own shm address for one test.
class TestDeviceServer {
public:
  explicit TestDeviceServer(const std::string &dir)
      : url_("shm://rc-cublas-legacy-" + std::to_string(getpid())),
        log_(dir + "/server.log") {
    pid_ = rc::test::startChild(
        {RC_SERVER_BIN, "--test-device", "--listen", url_}, {}, log_);
    for (int i = 0; i < 500 && !ready(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ~TestDeviceServer() {
    kill(pid_, SIGTERM);
    waitBounded(pid_, 5);
  }
  bool ready() const {
    return readFile(log_).find("listening on") != std::string::npos;
  }
  const std::string &url() const { return url_; }
  std::string log() const { return readFile(log_); }

private:
  std::string url_, log_;
  pid_t pid_;
};

// The program's exit status (as waitBounded reports it) and its output.
int runProgram(const TestDeviceServer &server, const std::string &dir,
               std::vector<std::string> args, std::string *out) {
  args.insert(args.begin(), RC_CUBLAS_LEGACY_PROG);
  pid_t prog =
      rc::test::startChild(args, {"RC_SERVER=" + server.url()}, dir + "/out");
  int status = waitBounded(prog, 60);
  *out = readFile(dir + "/out");
  return status;
}

std::string tempDir() {
  char tmpl[] = "/tmp/rc-cublas-legacy-XXXXXX";
  return mkdtemp(tmpl) ? tmpl : "";
}

TEST(CublasLegacy, ImplicitHandleAndErrorsOverShm) {
  std::string dir = tempDir();
  ASSERT_FALSE(dir.empty());
  TestDeviceServer server(dir);
  ASSERT_TRUE(server.ready()) << "rc-server did not start:\n" << server.log();
  std::string out;
  EXPECT_EQ(runProgram(server, dir, {}, &out), 0) << out;
  for (const char *want :
       {"ok cublasSdot before cublasInit: 0, NOT_INITIALIZED",
        "ok cublasSetKernelStream before cublasInit refused",
        "ok cublasShutdown before cublasInit succeeds", "ok cublasInit",
        "ok cublasGetVersion", "ok cublasAlloc of nothing refused",
        "ok cublasAlloc", "ok cublasDgemm",
        "ok cublasSgemm on the kernel stream",
        "ok bad letter: INVALID_VALUE until read, then cleared",
        "ok lda too small refused",
        "ok cublasSdot refused by the test device: 0, NOT_SUPPORTED",
        "cublasSdot_v2 is not in the cuBLAS library this device serves",
        "ok cublasFree", "ok cublasShutdown",
        "ok after cublasShutdown: NOT_INITIALIZED", "PASS"})
    EXPECT_NE(out.find(want), std::string::npos)
        << "missing '" << want << "' in:\n"
        << out;
  if (!testing::Test::HasFailure())
    std::filesystem::remove_all(dir);
}

// A legacy routine whose v2 routine is not served links (a stub of
// gen_unsupported_stubs.py) and stops the program at the call, naming it.
TEST(CublasLegacy, UnservedRoutineFailsByName) {
  std::string dir = tempDir();
  ASSERT_FALSE(dir.empty());
  TestDeviceServer server(dir);
  ASSERT_TRUE(server.ready()) << "rc-server did not start:\n" << server.log();
  std::string out;
  int status = runProgram(server, dir, {"unserved"}, &out);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("remote-clang: cublasSgbmv is not supported by the "
                     "remote cuBLAS"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("the unserved cublasSgbmv returned"), std::string::npos)
      << out;
  if (!testing::Test::HasFailure())
    std::filesystem::remove_all(dir);
}

} // namespace
