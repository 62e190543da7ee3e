// librc_cublas end to end: rc-server --test-device over shm and a plain C++
// program linked to librc_cudart + librc_cublas (programs/cublas_calls.cpp).
// Every wait is bounded; the server is killed by pid when the test ends.
#include "child_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using rc::test::readFile;
using rc::test::waitBounded;

TEST(CublasIntegration, GgmlCallShapesOverShm) {
  char tmpl[] = "/tmp/rc-cublas-itest-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::string url = "shm://rc-cublas-" + std::to_string(getpid());
  pid_t server = rc::test::startChild(
      // The program has no kernels of its own: no manifest.
      {RC_SERVER_BIN, "--test-device", "--listen", url}, {},
      dir + "/server.log");
  bool ready = false;
  for (int i = 0; i < 500 && !ready; ++i) {
    ready =
        readFile(dir + "/server.log").find("listening on") != std::string::npos;
    if (!ready)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (ready) {
    pid_t prog = rc::test::startChild({RC_CUBLAS_PROG}, {"RC_SERVER=" + url},
                                      dir + "/out");
    int status = waitBounded(prog, 60);
    std::string out = readFile(dir + "/out");
    EXPECT_EQ(status, 0) << out;
    for (const char *want :
         {"ok cublasSgemm", "ok cublasGemmEx F16->F32",
          "ok cublasGemmBatchedEx", "ok lda too small refused at the call",
          "ok cublasDgemm", "ok cublasSetVector/GetVector strided",
          "ok cublasSetMatrixAsync/GetMatrixAsync with leading dimensions",
          "ok cublasSetMatrix lda < rows, cublasSetVector incx 0 refused",
          "ok cublasSetVector past the allocation is a mapping error",
          "bad pointer: at call CUBLAS_STATUS_SUCCESS, at sync "
          "cudaErrorInvalidValue",
          "remote-clang: GPU server error: cublasGemmEx: C range 0x10",
          "ok cublasSgemm with device alpha and beta",
          "ok back to host scalars",
          "ok cublasSdot_v2 refused by the test device",
          "cublasSdot_v2 is not in the cuBLAS library this device serves",
          "PASS"})
      EXPECT_NE(out.find(want), std::string::npos)
          << "missing '" << want << "' in:\n"
          << out;
  }
  kill(server, SIGTERM);
  waitBounded(server, 5);
  ASSERT_TRUE(ready) << "rc-server did not start:\n"
                     << readFile(dir + "/server.log");
  if (!testing::Test::HasFailure())
    std::filesystem::remove_all(dir);
}

} // namespace
