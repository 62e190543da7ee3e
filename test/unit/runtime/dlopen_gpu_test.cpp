// On a GPU: a program that dlopens CUDA (programs/dlopen_cuda.cpp) reaches
// a real rc-server through remote-clang's library folder, and the PTX
// kernel it loads by cuModuleLoadData scales its buffer on the GPU. Skips
// where no NVIDIA driver can be loaded (docs/driver-api.md).
#include "child_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dlfcn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using rc::test::readFile;

// The build's paths, or a carried bundle's (scripts/device-run.sh gtests).
std::string setting(const char *name, const char *built) {
  const char *v = std::getenv(name);
  return v && *v ? v : built;
}

TEST(DlopenGpu, PtxKernelScalesThroughLibcuda) {
  const std::string serverBin = setting("RC_SERVER_BIN", RC_SERVER_BIN);
  const std::string prog = setting("RC_TEST_DLOPEN_PROG", RC_DLOPEN_PROG);
  // The CUDA names first; what they need (librc_cudart) may be further on.
  std::string libs = setting("RC_TEST_DLOPEN_LIBS", RC_LIB_DIR);
  if (const char *path = std::getenv("LD_LIBRARY_PATH"))
    libs += std::string(":") + path;
  if (serverBin.empty())
    GTEST_SKIP() << "rc-server is not built (no cuda.h for it)";
  // This process has no remote-clang folder on its path: the driver it
  // finds is NVIDIA's, or none.
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU test here";
  char dirTemplate[] = "/tmp/rc-dlopen-gpu-XXXXXX";
  std::string dir = mkdtemp(dirTemplate) ? dirTemplate : "/tmp";
  std::string url = "shm://rc-dlopen-gpu-" + std::to_string(getpid());
  std::string log = dir + "/server.log";
  pid_t server = rc::test::startChild({serverBin, "--listen", url}, {}, log);
  bool ready = false;
  for (int i = 0; i < 1500 && !ready; ++i) {
    ready = readFile(log).find("listening on") != std::string::npos;
    if (!ready && waitpid(server, nullptr, WNOHANG) == server)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!ready) {
    kill(server, SIGKILL);
    waitpid(server, nullptr, 0);
    GTEST_SKIP() << "rc-server found no usable GPU:\n" << readFile(log);
  }
  for (const char *lib : {"libcuda.so.1", "libcudart.so.12"}) {
    rc::test::ChildResult r = rc::test::runChild(
        {prog, lib, "scaled"}, {"RC_SERVER=" + url, "LD_LIBRARY_PATH=" + libs},
        dir + "/prog.out", 120);
    EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                           << readFile(log);
    EXPECT_NE(r.output.find("1000 of 1000 values as expected (scaled"),
              std::string::npos)
        << r.output;
  }
  kill(server, SIGTERM);
  if (rc::test::waitBounded(server, 30) != 0)
    ADD_FAILURE() << "rc-server did not stop cleanly:\n" << readFile(log);
}

} // namespace
