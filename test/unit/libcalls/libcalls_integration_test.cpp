// Vendor library calls end to end: programs linked to librc_curand,
// librc_cublas or librc_cusolver (and librc_cudart) against rc-server
// --test-device over shm, whose libraries are the stand-ins fake_*.cpp.
// Every wait is bounded.
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

struct ProgramRun {
  int status = -1;
  std::string out;       // the program's
  std::string serverLog; // after the session ended (`settle` found)
};

// Runs `program` against a fresh rc-server and returns what both printed;
// waits (bounded) for `settle` in the server's log after the program ends.
ProgramRun runAgainstTestDevice(const char *program,
                                const std::string &settle) {
  ProgramRun run;
  char tmpl[] = "/tmp/rc-libcalls-itest-XXXXXX";
  if (!mkdtemp(tmpl)) {
    ADD_FAILURE() << "mkdtemp";
    return run;
  }
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
    pid_t prog =
        rc::test::startChild({program}, {"RC_SERVER=" + url}, dir + "/out");
    run.status = waitBounded(prog, 60);
    run.out = readFile(dir + "/out");
    for (int i = 0; i < 100; ++i) {
      run.serverLog = readFile(dir + "/server.log");
      if (run.serverLog.find(settle) != std::string::npos)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  kill(server, SIGTERM);
  waitBounded(server, 5);
  EXPECT_TRUE(ready) << "rc-server did not start:\n"
                     << readFile(dir + "/server.log");
  if (!testing::Test::HasFailure())
    std::filesystem::remove_all(dir);
  return run;
}

void expectLines(const std::string &out,
                 std::initializer_list<const char *> lines) {
  for (const char *want : lines)
    EXPECT_NE(out.find(want), std::string::npos)
        << "missing '" << want << "' in:\n"
        << out;
}

TEST(LibCallsIntegration, CurandHostApiOverShm) {
  // The session ends with one generator left: rc-server destroys it.
  ProgramRun run =
      runAgainstTestDevice(RC_CURAND_PROG, "generator destroyed, 0 left");
  EXPECT_EQ(run.status, 0) << run.out;
  expectLines(run.out,
              {"ok curandGetVersion 424242",
               "ok curandGenerateUniform into device memory",
               "ok curandGenerateUniform captured into a graph",
               "ok curandCreateGeneratorHost writes host memory",
               "ok managed memory: set-up leaves it open, generating fences it",
               "ok curandGetDirectionVectors32 table and status",
               "ok a refused type fails the next sync: cudaErrorUnknown",
               "curandCreateGenerator returned status 103",
               "ok past the allocation: cudaErrorInvalidValue",
               "curandGenerateUniform parameter 1 range",
               "ok a destroyed generator: cudaErrorInvalidResourceHandle",
               "names no object of its type in this session", "PASS"});
  EXPECT_NE(run.serverLog.find("generator destroyed, 0 left"),
            std::string::npos)
      << run.serverLog;
}

TEST(LibCallsIntegration, CublasLtOverShm) {
  ProgramRun run = runAgainstTestDevice(RC_CUBLASLT_PROG, "heuristic query 2");
  EXPECT_EQ(run.status, 0) << run.out;
  expectLines(run.out,
              {"ok the same query twice", "ok another shape",
               "ok cublasLtMatmul with the heuristic's algorithm",
               "ok no algorithm, 8-byte scalars",
               "ok device pointer mode refused",
               "cublasLtMatmulDescSetAttribute(CUBLASLT_MATMUL_DESC_POINTER_"
               "MODE, device) is not supported",
               "ok a workspace past its allocation: cudaErrorInvalidValue",
               "cublasLtMatmul parameter 13 range", "PASS"});
  // Three queries, two shapes: the repeated one never left the client.
  EXPECT_NE(run.serverLog.find("heuristic query 2"), std::string::npos)
      << run.serverLog;
  EXPECT_EQ(run.serverLog.find("heuristic query 3"), std::string::npos)
      << run.serverLog;
}

TEST(LibCallsIntegration, CusolverWorkBuffersOverShm) {
  ProgramRun run = runAgainstTestDevice(RC_CUSOLVER_PROG, "");
  EXPECT_EQ(run.status, 0) << run.out;
  expectLines(run.out,
              {"ok a work buffer before its size is refused",
               "a host work buffer of 0 bytes",
               "ok arrays read and written, the work buffer kept",
               "ok a work buffer past the session's bound is refused",
               "rc-server keeps up to 1073741824 bytes of them", "PASS"});
}

TEST(LibCallsIntegration, NppStreamContextOverShm) {
  ProgramRun run = runAgainstTestDevice(RC_NPP_PROG, "");
  EXPECT_EQ(run.status, 0) << run.out;
  expectLines(run.out,
              {"ok the stream context's fields and stream reach NPP", "PASS"});
}

} // namespace
