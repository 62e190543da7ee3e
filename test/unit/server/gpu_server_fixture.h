// What every in-process GPU test of the server starts from: a ServerCore on
// the CUDA backend serving the test kernels' manifest (gpu_kernels.cu),
// skipped with the reason where no GPU is usable, and clients connected to
// it over in-memory connections. The suites (gpu_test.cpp, graph_gpu_test,
// gpu_ext_test) add what is particular to them.
#ifndef RC_SERVER_GPU_SERVER_FIXTURE_H
#define RC_SERVER_GPU_SERVER_FIXTURE_H

#include "gpu_manifest.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace rc::server::test {

class GpuServerTest : public ::testing::Test {
protected:
  // GPU replies include context creation and kernel time.
  static constexpr int kReplyTimeoutMs = 30000;

  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    g = writeGpuManifest();
    ServerOptions o;
    o.manifests = {g.path};
    configure(o);
    std::string err;
    if (!core.start(o, &err)) {
      if (noUsableGpu(err))
        GTEST_SKIP() << "no usable GPU here: " << err;
      FAIL() << err;
    }
  }

  // What a suite adds to the server's options before it starts.
  virtual void configure(ServerOptions &) {}

  // A new client whose Hello succeeded (a failure is reported; the client
  // is returned anyway). *helloReply keeps the reply when asked for.
  MemClient connect(Bytes *helloReply = nullptr) {
    auto ends = memPair();
    core.serve(std::move(ends.second));
    MemClient c{std::move(ends.first), kReplyTimeoutMs};
    Bytes r = c.roundTrip(hello({g.hash}));
    const wire::HelloReply *hr = asHelloReply(r);
    EXPECT_TRUE(hr && hr->ok())
        << (hr && hr->error() ? hr->error()->str()
                              : std::string("no HelloReply"));
    if (helloReply)
      *helloReply = std::move(r);
    return c;
  }

  // The batch reply in `r`, with its first error reported as a failure.
  static const wire::BatchReply *ok(const Bytes &r) {
    const wire::BatchReply *br = asBatchReply(r);
    EXPECT_NE(br, nullptr);
    if (br && br->errors() && br->errors()->size())
      ADD_FAILURE() << br->errors()->Get(0)->message()->str();
    return br;
  }

  static Bytes floats(const std::vector<float> &v) {
    Bytes b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  }

  GpuManifest g;
  ServerCore core;
};

} // namespace rc::server::test

#endif
