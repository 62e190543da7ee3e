// Graph commands at the wire level on the host test device: node
// validation at instantiate, replay on launch (memory effects, recorded
// launches), partial updates, and refusal of bad input.
#include "graph_test_util.h"
#include "rc/server/host_backend.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"

#include <gtest/gtest.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

using Client = MemClient; // 5 s for each reply

class GraphSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    m = writeTestManifest();
    ASSERT_TRUE(startOnTestDevice(core, m.path));
    auto ends = memPair();
    core.serve(std::move(ends.second));
    c.conn = std::move(ends.first);
    // Keep the reply's bytes alive: hr points into them.
    Bytes helloReply = c.roundTrip(hello({m.hash}));
    const wire::HelloReply *hr = asHelloReply(helloReply);
    ASSERT_TRUE(hr && hr->ok())
        << (hr && hr->error() ? hr->error()->str()
                              : std::string("no HelloReply"));
    Bytes r = c.roundTrip(batch(seq++, {cMalloc(1024), cMalloc(1024)}));
    const wire::BatchReply *br = asBatchReply(r);
    ASSERT_TRUE(br && resultAt(br, 0) && resultAt(br, 1));
    a = resultAt(br, 0)->addr();
    b = resultAt(br, 1)->addr();
  }
  HostBackend &backend() { return static_cast<HostBackend &>(core.backend()); }
  // Runs a batch; returns its error ("" when none) and the reply.
  std::string run(const std::vector<Cmd> &cmds, Bytes *reply = nullptr,
                  uint32_t *index = nullptr, int *code = nullptr) {
    Bytes r = c.roundTrip(batch(seq++, cmds));
    const wire::BatchReply *br = asBatchReply(r);
    EXPECT_NE(br, nullptr);
    if (reply)
      *reply = r;
    if (!br || !br->errors() || br->errors()->size() == 0)
      return "";
    const wire::Error *e = br->errors()->Get(0);
    if (index)
      *index = e->index();
    if (code)
      *code = e->code();
    return e->message()->str();
  }
  std::vector<uint8_t> read(uint64_t addr, uint64_t n) {
    Bytes r;
    EXPECT_EQ(run({cD2H(addr, n)}, &r), "");
    const wire::Result *res = resultAt(asBatchReply(r), 0);
    return res ? std::vector<uint8_t>(res->payload()->begin(),
                                      res->payload()->end())
               : std::vector<uint8_t>();
  }

  TestManifest m;
  ServerCore core;
  Client c;
  uint64_t seq = 1, a = 0, b = 0;
};

TEST_F(GraphSessionTest, LaunchReplaysTheNodesInOrder) {
  ASSERT_EQ(run({cStreamCreate(10),
                 cGraphInstantiate(
                     5, {cMemset(a, 9, 64), cD2D(b, a, 32),
                         cLaunch(m.scaleId, scaleArgs(b, 8), 0, {2, 1, 1}),
                         cMemset(a, 1, 8)})}),
            "");
  EXPECT_EQ(read(b, 1)[0], 0) << "instantiate runs nothing";
  EXPECT_TRUE(backend().launches().empty());
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(run({cGraphLaunch(5, 10), cStreamSync(10)}), "");
  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), 3u);
  for (const auto &l : launches) {
    EXPECT_EQ(l.kernelId, m.scaleId);
    EXPECT_EQ(l.config.grid[0], 2u);
    EXPECT_EQ(l.args, scaleArgs(b, 8));
  }
  std::vector<uint8_t> got = read(b, 64), gotA = read(a, 16);
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(got[i], i < 32 ? 9 : 0) << i;
  EXPECT_EQ(gotA[0], 1);
  EXPECT_EQ(gotA[8], 9) << "the last memset covers 8 bytes only";
}

TEST_F(GraphSessionTest, UpdateReplacesOnlyTheGivenNodes) {
  ASSERT_EQ(run({cGraphInstantiate(7, {cLaunch(m.scaleId, scaleArgs(a, 1)),
                                       cMemset(a, 1, 4),
                                       cLaunch(m.scaleId, scaleArgs(a, 2))})}),
            "");
  ASSERT_EQ(run({cGraphUpdate(
                     7, {1, 2},
                     {cMemset(b, 2, 4), cLaunch(m.scaleId, scaleArgs(b, 3))}),
                 cGraphLaunch(7)}),
            "");
  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].args, scaleArgs(a, 1));
  EXPECT_EQ(launches[1].args, scaleArgs(b, 3));
  EXPECT_EQ(read(b, 1)[0], 2);
  EXPECT_EQ(read(a, 1)[0], 0);
}

TEST_F(GraphSessionTest, BadNodesAndHandlesAreRefused) {
  uint32_t index = 99;
  int code = 0;
  std::string e =
      run({cMemset(a, 0, 4),
           cGraphInstantiate(1, {cMemset(a, 0, 4),
                                 cLaunch(m.scaleId, scaleArgs(0x1234, 1))})},
          nullptr, &index, &code);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(code, 1);
  EXPECT_NE(e.find("cudaGraphInstantiate: node 1 (launch of kernel scale"),
            std::string::npos)
      << e;
  e = run({cGraphInstantiate(2, {cMemset(a, 0, 2048)})});
  EXPECT_NE(e.find("node 0 (cudaMemsetAsync): destination range"),
            std::string::npos)
      << e;
  e = run({cGraphInstantiate(3, {cMalloc(16)})});
  EXPECT_NE(e.find("cannot be a graph node"), std::string::npos) << e;
  e = run({cGraphLaunch(42)}, nullptr, nullptr, &code);
  EXPECT_EQ(code, 400);
  EXPECT_NE(e.find("cudaGraphLaunch: unknown graph exec 0x2a"),
            std::string::npos)
      << e;

  ASSERT_EQ(run({cGraphInstantiate(4, {cMemset(a, 0, 4)})}), "");
  e = run({cGraphInstantiate(4, {})});
  EXPECT_NE(e.find("already in use"), std::string::npos) << e;
  // An update must keep each node's type and stay inside the graph.
  e = run({cGraphUpdate(4, {0}, {cD2D(b, a, 4)})});
  EXPECT_NE(e.find("changes type"), std::string::npos) << e;
  e = run({cGraphUpdate(4, {1}, {cMemset(a, 0, 4)})});
  EXPECT_NE(e.find("past the graph's 1 nodes"), std::string::npos) << e;
  e = run({cGraphUpdate(4, {0}, {cMemset(a, 0, 4096)})});
  EXPECT_NE(e.find("destination range"), std::string::npos) << e;
  ASSERT_EQ(run({cGraphDestroy(4)}), "");
  e = run({cGraphDestroy(4)}, nullptr, nullptr, &code);
  EXPECT_EQ(code, 400);
  // Nothing above ran a launch.
  EXPECT_TRUE(backend().launches().empty());
}

} // namespace
