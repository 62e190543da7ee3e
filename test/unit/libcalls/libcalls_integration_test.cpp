// cuRAND's host API end to end: a program linked to librc_curand and
// librc_cudart against rc-server --test-device over shm, whose libcurand
// is the stand-in fake_curand.cpp. Every wait is bounded.
#include "child_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>
#include <unistd.h>

namespace {

using rc::test::readFile;
using rc::test::waitBounded;

TEST(LibCallsIntegration, CurandHostApiOverShm) {
  char tmpl[] = "/tmp/rc-libcalls-itest-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::string url = "shm://rc-libcalls-" + std::to_string(getpid());
  pid_t server = rc::test::startChild(
      {RC_SERVER_BIN, "--test-device", "--listen", url},
      {std::string("LD_LIBRARY_PATH=") + RC_FAKE_LIBS}, dir + "/server.log");
  bool ready = false;
  for (int i = 0; i < 500 && !ready; ++i) {
    ready =
        readFile(dir + "/server.log").find("listening on") != std::string::npos;
    if (!ready)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (ready) {
    pid_t prog = rc::test::startChild({RC_CURAND_PROG}, {"RC_SERVER=" + url},
                                      dir + "/out");
    int status = waitBounded(prog, 60);
    std::string out = readFile(dir + "/out");
    EXPECT_EQ(status, 0) << out;
    for (const char *want :
         {"ok curandGetVersion 424242",
          "ok curandGenerateUniform into device memory",
          "ok curandCreateGeneratorHost writes host memory",
          "ok curandGetDirectionVectors32 table and status",
          "ok a refused type fails the next sync: cudaErrorUnknown",
          "curandCreateGenerator returned status 103",
          "ok past the allocation: cudaErrorInvalidValue",
          "curandGenerateUniform parameter 1 range",
          "ok a destroyed generator: cudaErrorInvalidResourceHandle",
          "names no object of its type in this session", "PASS"})
      EXPECT_NE(out.find(want), std::string::npos)
          << "missing '" << want << "' in:\n"
          << out;
    // The session ended with one generator left: rc-server destroyed it.
    std::string log;
    for (int i = 0; i < 100; ++i) {
      log = readFile(dir + "/server.log");
      if (log.find("generator destroyed, 0 left") != std::string::npos)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_NE(log.find("generator destroyed, 0 left"), std::string::npos)
        << log;
  }
  kill(server, SIGTERM);
  waitBounded(server, 5);
  ASSERT_TRUE(ready) << "rc-server did not start:\n"
                     << readFile(dir + "/server.log");
  if (!testing::Test::HasFailure())
    std::filesystem::remove_all(dir);
}

} // namespace
