// The exported C API (cudaXxx) over a real in-process rc-server session on
// host test devices: the runtime is installed as the process's, the test
// module (programs/test_module.h) is registered as clang's start-up code
// registers a program's, and its manifest is the session's. For the calls
// served by the client alone and those that need the session, called as a
// program calls them.
#ifndef RC_TEST_SERVED_API_FIXTURE_H
#define RC_TEST_SERVED_API_FIXTURE_H

#include "api/global.h"
#include "in_process_runtime.h"
#include "program_manifest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" {
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int,
                            uint3 *, uint3 *, dim3 *, dim3 *, int *);
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int,
                       int);
}

namespace rc::test {

// The kernel's host stub and the variable's host shadow.
inline void scaleStub() {}
inline float coeffsShadow[16];

inline const void *registeredKernel() {
  static bool done = [] {
    static struct {
      int magic, version;
      const void *data;
      void *unused;
    } wrapper = {int(0x466243B1), 1, kTestFatbin, nullptr};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, reinterpret_cast<const char *>(&scaleStub),
                           nullptr, kTestKernelName, -1, nullptr, nullptr,
                           nullptr, nullptr, nullptr);
    __cudaRegisterVar(h, reinterpret_cast<char *>(coeffsShadow), nullptr,
                      kTestVarName, 0, kTestVarSize, 0, 0);
    return true;
  }();
  (void)done;
  return reinterpret_cast<const void *>(&scaleStub);
}

class ServedApiTest : public ::testing::Test {
protected:
  virtual int testDevices() const { return 1; }

  void SetUp() override {
    rc::server::setLogLevel(rc::server::LogLevel::Quiet);
    stub = registeredKernel();
    char dir[] = "/tmp/rc-served-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    std::string manifest = writeProgramManifest(dir_, "served.rcm");
    ASSERT_TRUE(
        rc::server::test::startOnTestDevice(core, manifest, testDevices()));
    auto connect = [this](int, std::string *) {
      auto ends = rc::server::test::memPair();
      core.serve(std::move(ends.second));
      return std::unique_ptr<rc::transport::Connection>(std::move(ends.first));
    };
    rc::rt::Options opts;
    opts.flusherThread = false;
    auto rt = std::make_unique<rc::rt::Runtime>(
        connect, rc::server::test::testManifestLoader(manifest), opts);
    ASSERT_EQ(rt->ensureConnected(), cudaSuccess);
    rc::rt::installRuntimeForTest(std::move(rt));
  }
  void TearDown() override {
    rc::rt::installRuntimeForTest(nullptr);
    core.stop();
    std::string rm = "rm -rf " + dir_;
    (void)std::system(rm.c_str());
  }
  rc::server::HostBackend &backend() {
    return static_cast<rc::server::HostBackend &>(core.backend());
  }
  // `bytes` of device memory, or a failed test.
  void *deviceBuffer(size_t bytes) {
    void *p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
    return p;
  }
  std::vector<uint8_t> readBack(const void *p, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    EXPECT_EQ(cudaMemcpy(out.data(), p, bytes, cudaMemcpyDeviceToHost),
              cudaSuccess);
    return out;
  }

  const void *stub = nullptr;
  rc::server::ServerCore core;

private:
  std::string dir_;
};

} // namespace rc::test

#endif
