// A Runtime connected to a real rc-server session in this process: the
// ServerCore on host test devices, over an in-memory connection, so both ends
// of each command are exercised together without a transport or a GPU.
#ifndef RC_TEST_IN_PROCESS_RUNTIME_H
#define RC_TEST_IN_PROCESS_RUNTIME_H

#include "rc/server/host_backend.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "runtime.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace rc::server::test {

// What the runtime loads at connect: the test manifest at `path`.
inline rt::ManifestLoader testManifestLoader(const std::string &path) {
  return [path](rt::KernelIndex &index) {
    auto lm = std::make_unique<LoadedManifest>();
    std::string error;
    ASSERT_TRUE(loadManifest(path, *lm, &error)) << error;
    index.add(std::move(lm));
  };
}

class InProcessRuntimeTest : public ::testing::Test {
protected:
  // How many test devices the server has (rc-server --test-devices).
  virtual int testDevices() const { return 1; }

  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    m = writeTestManifest();
    ASSERT_TRUE(startOnTestDevice(core, m.path, testDevices()));
    auto connect = [this](int, std::string *) {
      auto ends = memPair();
      core.serve(std::move(ends.second));
      return std::unique_ptr<transport::Connection>(std::move(ends.first));
    };
    rt::Options opts;
    opts.flusherThread = false;
    opts.batchAgeUs = int64_t(3600) * 1000000; // batches leave on demand
    rt = std::make_unique<rt::Runtime>(connect, testManifestLoader(m.path),
                                       opts);
    ASSERT_EQ(rt->ensureConnected(), cudaSuccess);
  }
  void TearDown() override {
    if (rt)
      rt->shutdown();
    rt.reset();
    core.stop();
  }
  HostBackend &backend() { return static_cast<HostBackend &>(core.backend()); }
  void *deviceAlloc(size_t n) {
    void *p = nullptr;
    EXPECT_EQ(rt->malloc(&p, n), cudaSuccess);
    return p;
  }

  TestManifest m;
  ServerCore core;
  std::unique_ptr<rt::Runtime> rt;
};

} // namespace rc::server::test

#endif
