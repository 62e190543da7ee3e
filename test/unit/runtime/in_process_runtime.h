// A Runtime connected to a real rc-server session in this process: the
// ServerCore on host test devices, over an in-memory connection, so both ends
// of each command are exercised together without a transport or a GPU.
#ifndef RC_TEST_IN_PROCESS_RUNTIME_H
#define RC_TEST_IN_PROCESS_RUNTIME_H

#include "core/runtime.h"
#include "rc/server/host_backend.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

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

// A Runtime connected to the ServerCore on the host test device through a
// real transport in this process: the test's parameter, "tcp" (loopback)
// or "shm", picks it ("mem": an in-memory connection). For what only a
// transport does (RMA, shared memory).
class TransportRuntimeTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override { setLogLevel(LogLevel::Quiet); }
  void TearDown() override {
    if (rt)
      rt->shutdown();
    rt.reset();
    stop = true;
    if (acceptor.joinable())
      acceptor.join();
    core.stop();
  }
  // Starts the server on a fresh address (clients must hold a key of
  // `serverKeyFile` when one is given); the connector that reaches it.
  rt::Connector startServer(const std::string &serverKeyFile = "") {
    m = writeTestManifest();
    EXPECT_TRUE(startOnTestDevice(core, m.path, 1, serverKeyFile));
    if (GetParam() == "mem")
      return [this](int, std::string *) {
        auto ends = memPair();
        core.serve(std::move(ends.second));
        return std::unique_ptr<transport::Connection>(std::move(ends.first));
      };
    static std::atomic<int> counter{0};
    std::string url = GetParam() == "tcp"
                          ? "tcp://127.0.0.1:0"
                          : "shm://rc_test_" + std::to_string(getpid()) + "_" +
                                std::to_string(counter++);
    std::string error;
    listener = transport::listen(url, &error);
    EXPECT_TRUE(listener) << error;
    if (!listener)
      return [error](int, std::string *err) {
        *err = error;
        return std::unique_ptr<transport::Connection>();
      };
    acceptor = std::thread([this] {
      while (!stop)
        if (auto conn = listener->accept(100))
          core.serve(std::move(conn));
    });
    std::string address = listener->address();
    return [address](int timeoutMs, std::string *err) {
      return transport::connect(address, timeoutMs, err);
    };
  }
  // Starts the server and a runtime with `opts` (its flusher thread off)
  // connected to it.
  void start(rt::Options opts) {
    rt::Connector connect = startServer();
    opts.flusherThread = false;
    rt = std::make_unique<rt::Runtime>(connect, testManifestLoader(m.path),
                                       opts);
    ASSERT_EQ(rt->ensureConnected(), cudaSuccess);
  }

  TestManifest m;
  ServerCore core;
  std::unique_ptr<transport::Listener> listener;
  std::thread acceptor;
  std::atomic<bool> stop{false};
  std::unique_ptr<rt::Runtime> rt;
};

} // namespace rc::server::test

#endif
