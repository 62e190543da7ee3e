// ServerCore end to end over in-memory connections: sessions on their own
// threads, isolation between clients, cleanup on disconnect, survival after
// a misbehaving client.
#include "rc/server/host_backend.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace rc::server;
using namespace rc::server::test;

namespace {

using Client = MemClient; // 5 s for each reply

template <class F> bool waitFor(F pred) {
  for (int i = 0; i < 500 && !pred(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return pred();
}

class CoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    m = writeTestManifest();
    ASSERT_TRUE(startOnTestDevice(core, m.path));
  }
  Client connect() {
    auto ends = memPair();
    core.serve(std::move(ends.second));
    return Client{std::move(ends.first)};
  }
  Client connectAndHello() {
    Client c = connect();
    const wire::HelloReply *hr;
    Bytes r = c.roundTrip(hello({m.hash}));
    EXPECT_NE(hr = asHelloReply(r), nullptr);
    EXPECT_TRUE(hr && hr->ok())
        << (hr && hr->error() ? hr->error()->str()
                              : std::string("no HelloReply"));
    return c;
  }
  TestManifest m;
  ServerCore core;
};

TEST_F(CoreTest, SummaryCountsWhatWasResolved) {
  EXPECT_NE(core.summary().find(
                "1 manifests, 1 modules, 2 kernels, 1 variables resolved in"),
            std::string::npos)
      << core.summary();
  EXPECT_NE(core.summary().find("backend host-test, 1 device(s): 0 "
                                "remote-clang host test device"),
            std::string::npos)
      << core.summary();
}

TEST_F(CoreTest, StartFailsOnABadManifest) {
  ServerCore other;
  ServerOptions o;
  o.manifests = {"/nonexistent/app.rcm"};
  o.testDevice = true;
  std::string err;
  EXPECT_FALSE(other.start(o, &err));
  EXPECT_NE(err.find("/nonexistent/app.rcm"), std::string::npos) << err;
}

TEST_F(CoreTest, TwoClientsCannotTouchEachOthersAllocations) {
  Client a = connectAndHello(), b = connectAndHello();
  uint64_t pa =
      resultAt(asBatchReply(a.roundTrip(batch(1, {cMalloc(64)}))), 0)->addr();
  uint64_t pb =
      resultAt(asBatchReply(b.roundTrip(batch(1, {cMalloc(64)}))), 0)->addr();
  ASSERT_NE(pa, pb);
  a.roundTrip(batch(2, {cMemset(pa, 0xAA, 64)}));
  // B may neither read, write, free nor launch on A's memory.
  for (const Cmd &c : {cD2H(pa, 8), cMemset(pa, 0, 8), cFree(pa),
                       cD2D(pb, pa, 8), cLaunch(m.scaleId, scaleArgs(pa, 1))}) {
    const wire::BatchReply *br = nullptr;
    Bytes r = b.roundTrip(batch(3, {c}));
    ASSERT_NE(br = asBatchReply(r), nullptr);
    ASSERT_EQ(br->errors()->size(), 1u);
    EXPECT_EQ(br->errors()->Get(0)->index(), 0u);
  }
  Bytes r = a.roundTrip(batch(4, {cD2H(pa, 8)}));
  EXPECT_EQ(resultAt(asBatchReply(r), 0)->payload()->Get(7), 0xAA);
}

TEST_F(CoreTest, DisconnectFreesTheSessionsMemory) {
  EXPECT_EQ(core.bytesInUse(), 0u);
  {
    Client a = connectAndHello();
    a.roundTrip(batch(1, {cMalloc(4096), cMalloc(8192)}));
    EXPECT_GE(core.bytesInUse(), 4096u + 8192u);
    EXPECT_EQ(core.liveSessions(), 1u);
  } // the client's connection closes here, without Goodbye
  EXPECT_TRUE(waitFor([&] { return core.liveSessions() == 0; }));
  EXPECT_EQ(core.bytesInUse(), 0u);
  EXPECT_EQ(core.closedSessions(), 1u);
}

TEST_F(CoreTest, GoodbyeEndsTheSession) {
  Client a = connectAndHello();
  a.roundTrip(batch(1, {cMalloc(100)}));
  a.conn->send(batch(2, {cGoodbye()}, false).data(),
               batch(2, {cGoodbye()}, false).size());
  EXPECT_TRUE(waitFor([&] { return core.liveSessions() == 0; }));
  EXPECT_EQ(core.bytesInUse(), 0u);
}

TEST_F(CoreTest, ServerKeepsServingAfterAMisbehavingClient) {
  {
    Client bad = connect();
    Bytes junk(1000, 0xFF);
    EXPECT_FALSE(asHelloReply(bad.roundTrip(junk))->ok());
    Bytes r = bad.roundTrip(hello({0x77}));
    EXPECT_FALSE(asHelloReply(r)->ok());
  }
  Client good = connectAndHello();
  Bytes r = good.roundTrip(batch(1, {cMalloc(8)}));
  EXPECT_NE(resultAt(asBatchReply(r), 0)->addr(), 0u);
}

TEST_F(CoreTest, StopEndsLiveSessions) {
  Client a = connectAndHello();
  a.roundTrip(batch(1, {cMalloc(100)}));
  core.stop();
  EXPECT_EQ(core.liveSessions(), 0u);
  EXPECT_EQ(core.bytesInUse(), 0u);
}

} // namespace
