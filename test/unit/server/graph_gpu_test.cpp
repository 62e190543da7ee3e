// Real CUDA graphs on the GPU (label gpu): the server captures the nodes
// into a CUDA graph, instantiates it, launches it repeatedly, and updates
// kernel, memset and copy nodes in place. Skipped without libcuda / a GPU.
#include "gpu_server_fixture.h"
#include "graph_test_util.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>

using namespace rc::server;
using namespace rc::server::test;

namespace {

class GraphGpuTest : public GpuServerTest {
protected:
  void SetUp() override {
    GpuServerTest::SetUp();
    if (!IsSkipped() && !HasFatalFailure())
      c = connect();
  }
  std::vector<float> read(uint64_t addr, size_t n) {
    reply = c.roundTrip(batch(seq++, {cD2H(addr, n * 4)}));
    const wire::Result *res = resultAt(ok(reply), 0);
    std::vector<float> out(n);
    if (res && res->payload() && res->payload()->size() == n * 4)
      std::memcpy(out.data(), res->payload()->data(), n * 4);
    return out;
  }
  Cmd scale(uint64_t p, int n) {
    return cLaunch(g.scale, scaleArgs(p, n), 0, {4, 1, 1}, {256, 1, 1});
  }

  MemClient c;
  Bytes reply;
  uint64_t seq = 1;
};

TEST_F(GraphGpuTest, CapturedKernelsRunAndUpdateInPlace) {
  Bytes r = c.roundTrip(batch(
      seq++, {cMalloc(4096), cMalloc(4096), cMalloc(4096), cStreamCreate(10)}));
  const wire::BatchReply *br = ok(r);
  ASSERT_TRUE(br && resultAt(br, 2));
  uint64_t x = resultAt(br, 0)->addr(), y = resultAt(br, 1)->addr(),
           z = resultAt(br, 2)->addr();
  std::vector<float> in(1024);
  for (int i = 0; i < 1024; ++i)
    in[i] = float(i % 7);
  Bytes two(4);
  float f = 2.0f;
  std::memcpy(two.data(), &f, 4);
  ok(c.roundTrip(batch(seq++, {cH2D(x, floats(in)), cH2D(z, floats(in)),
                               cSymbolWrite(g.table, 0, two)})));

  // x *= 2 twice, y = 0, then y[0..512) = x[0..512).
  ok(c.roundTrip(batch(
      seq++, {cGraphInstantiate(1, {scale(x, 1024), scale(x, 1024),
                                    cMemset(y, 0, 4096), cD2D(y, x, 2048)})})));
  for (int i = 0; i < 3; ++i) { // fire and forget, like the runtime
    Bytes m = batch(seq++, {cGraphLaunch(1, 10)}, false);
    ASSERT_EQ(c.conn->send(m.data(), m.size()), rc::transport::Status::Ok);
  }
  ok(c.roundTrip(batch(seq++, {cStreamSync(10)})));
  std::vector<float> gx = read(x, 1024), gy = read(y, 1024);
  for (int i = 0; i < 1024; ++i) {
    ASSERT_EQ(gx[i], in[i] * 64) << i; // 3 launches x 2 nodes x (*2)
    ASSERT_EQ(gy[i], i < 512 ? in[i] * 64 : 0.0f) << i;
  }

  // Node 0 now scales z's first half; the copy (node 3) now takes z's
  // first half into y's upper half; nodes 1 and 2 are unchanged.
  ok(c.roundTrip(batch(
      seq++, {cGraphUpdate(1, {0, 3}, {scale(z, 512), cD2D(y + 2048, z, 2048)}),
              cGraphLaunch(1, 10), cStreamSync(10)})));
  gx = read(x, 1024);
  std::vector<float> gz = read(z, 1024);
  gy = read(y, 1024);
  for (int i = 0; i < 1024; ++i) {
    ASSERT_EQ(gx[i], in[i] * 128) << i; // node 1 still scales x
    ASSERT_EQ(gz[i], i < 512 ? in[i] * 2 : in[i]) << i;
    ASSERT_EQ(gy[i], i < 512 ? 0.0f : gz[i - 512]) << i;
  }
  ok(c.roundTrip(batch(seq++, {cGraphDestroy(1), cDeviceSync()})));
}

// Many small kernels per graph, as a decode step: each of the graph's 100
// nodes doubles every element, so 2^100 (exact in a float) after each of
// several launches proves that every node ran every time. (What replay
// costs is measured by bench/profile-decode.sh, not here.)
TEST_F(GraphGpuTest, EveryNodeOfALargeGraphRunsAtEachLaunch) {
  Bytes r = c.roundTrip(batch(seq++, {cMalloc(4096)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  const int nodes = 100;
  std::vector<Cmd> graph;
  for (int i = 0; i < nodes; ++i)
    graph.push_back(scale(buf, 1024));
  Bytes two(4);
  const float factor = 2.0f;
  std::memcpy(two.data(), &factor, 4);
  ok(c.roundTrip(batch(
      seq++, {cSymbolWrite(g.table, 0, two), cGraphInstantiate(9, graph)})));
  const std::vector<float> ones(1024, 1.0f);
  for (int launch = 0; launch < 10; ++launch) {
    ok(c.roundTrip(batch(
        seq++, {cH2D(buf, floats(ones)), cGraphLaunch(9), cStreamSync(0)})));
    std::vector<float> out = read(buf, 1024);
    for (int i = 0; i < 1024; ++i)
      ASSERT_EQ(out[i], std::ldexp(1.0f, nodes))
          << "launch " << launch << ", element " << i;
  }
}

} // namespace
