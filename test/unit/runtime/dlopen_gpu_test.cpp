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

TEST(DlopenGpu, PtxKernelScalesThroughLibcuda) {
  if (std::string(RC_SERVER_BIN).empty())
    GTEST_SKIP() << "rc-server is not built (no cuda.h for it)";
  // This process has no remote-clang folder on its path: the driver it
  // finds is NVIDIA's, or none.
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU test here";
  char dirTemplate[] = "/tmp/rc-dlopen-gpu-XXXXXX";
  std::string dir = mkdtemp(dirTemplate) ? dirTemplate : "/tmp";
  std::string url = "shm://rc-dlopen-gpu-" + std::to_string(getpid());
  std::string log = dir + "/server.log";
  pid_t server =
      rc::test::startChild({RC_SERVER_BIN, "--listen", url}, {}, log);
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
        {RC_DLOPEN_PROG, lib, "scaled"},
        {"RC_SERVER=" + url, std::string("LD_LIBRARY_PATH=") + RC_LIB_DIR},
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
