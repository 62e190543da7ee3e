// The fixture of the CUDA graph tests: the runtime against a real
// in-process rc-server session on the host test device (graphs replay
// their node list there: memsets and copies move bytes, launches are
// recorded), with the bytes of every message it sends.
#ifndef RC_TEST_GRAPH_TEST_FIXTURE_H
#define RC_TEST_GRAPH_TEST_FIXTURE_H

#include "core/runtime.h"
#include "rc/server/host_backend.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <cstring>

namespace rc::test {

namespace st = rc::server::test;
using rc::rt::Runtime;

// The client end of the in-memory pair, remembering what it sent, so tests
// can assert how many bytes a call put on the wire.
class CountingConnection : public rc::transport::Connection {
public:
  explicit CountingConnection(std::unique_ptr<rc::transport::Connection> c)
      : inner_(std::move(c)) {}
  rc::transport::Status send(const void *data, size_t size) override {
    sizes.push_back(size);
    return inner_->send(data, size);
  }
  rc::transport::Status recv(std::vector<uint8_t> &m, int t) override {
    return inner_->recv(m, t);
  }
  bool peerAlive() override { return inner_->peerAlive(); }
  std::string peerDescription() const override { return "counting"; }
  std::string lastError() const override { return inner_->lastError(); }
  std::vector<size_t> sizes;

private:
  std::unique_ptr<rc::transport::Connection> inner_;
};

class GraphRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    rc::server::setLogLevel(rc::server::LogLevel::Quiet);
    m = st::writeTestManifest();
    ASSERT_TRUE(st::startOnTestDevice(core, m.path));
    auto connect = [this](int, std::string *) {
      auto ends = st::memPair();
      core.serve(std::move(ends.second));
      auto c = std::make_unique<CountingConnection>(std::move(ends.first));
      conn = c.get();
      return std::unique_ptr<rc::transport::Connection>(std::move(c));
    };
    std::string path = m.path;
    auto load = [path](rc::rt::KernelIndex &index) {
      auto lm = std::make_unique<rc::LoadedManifest>();
      std::string error;
      ASSERT_TRUE(rc::loadManifest(path, *lm, &error)) << error;
      index.add(std::move(lm));
    };
    rc::rt::Options opts;
    opts.flusherThread = false;
    opts.batchAgeUs = int64_t(3600) * 1000000; // batches leave at syncs only
    // Every sync sends its batch: the tests measure wire sizes per step.
    opts.elideSyncs = false;
    rt = std::make_unique<Runtime>(connect, load, opts);
    ASSERT_EQ(rt->ensureConnected(), cudaSuccess);
    ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  }
  void TearDown() override {
    if (rt)
      rt->shutdown();
    rt.reset();
    core.stop();
  }
  rc::server::HostBackend &backend() {
    return static_cast<rc::server::HostBackend &>(core.backend());
  }
  void *alloc(size_t n) {
    void *p = nullptr;
    EXPECT_EQ(rt->malloc(&p, n), cudaSuccess);
    return p;
  }
  cudaError_t scale(void *p, int n, cudaStream_t stream) {
    void *args[] = {&p, &n};
    return rt->kernels().launch(m.scaleId, dim3(1), dim3(32), args, 0, stream,
                                false);
  }
  std::vector<uint8_t> read(void *p, size_t n) {
    std::vector<uint8_t> out(n);
    EXPECT_EQ(rt->memcpy(out.data(), p, n, cudaMemcpyDeviceToHost, nullptr,
                         false, false),
              cudaSuccess);
    return out;
  }
  cudaStreamCaptureStatus status(cudaStream_t stream) {
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    EXPECT_EQ(rt->graphs().streamIsCapturing(stream, &st, nullptr, false),
              cudaSuccess);
    return st;
  }
  // Captures `body` on s into a graph.
  template <typename F> cudaGraph_t capture(F body) {
    EXPECT_EQ(
        rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeRelaxed, false),
        cudaSuccess);
    body();
    cudaGraph_t g = nullptr;
    EXPECT_EQ(rt->graphs().streamEndCapture(s, &g, false), cudaSuccess);
    EXPECT_NE(g, nullptr);
    return g;
  }

  st::TestManifest m;
  rc::server::ServerCore core;
  std::unique_ptr<Runtime> rt;
  CountingConnection *conn = nullptr;
  cudaStream_t s = nullptr;
};

inline uint64_t argPointer(const std::vector<uint8_t> &args) {
  uint64_t p;
  std::memcpy(&p, args.data(), 8);
  return p;
}

} // namespace rc::test

#endif
