// Sessions over the real transports (tcp;ofi_rxm on 127.0.0.1 and shm), on
// the host test device. Skipped while rc_transport is not built.
#include "process_util.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

class NetTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
#ifndef RC_TEST_HAVE_TRANSPORT
    GTEST_SKIP() << "rc_transport is not built yet: no tcp/shm session tests";
#else
    setLogLevel(LogLevel::Quiet);
    m = writeTestManifest();
    ASSERT_TRUE(startOnTestDevice(core, m.path));
    std::string err;
    url = freshUrl(GetParam(), "rc-server-test");
    listener = rc::transport::listen(url, &err);
    if (!listener)
      GTEST_SKIP() << "cannot listen on " << url << ": " << err;
    acceptor = std::thread([this] {
      while (!stop) {
        auto c = listener->accept(100);
        if (c)
          core.serve(std::move(c));
      }
    });
#endif
  }
  void TearDown() override {
    stop = true;
    if (acceptor.joinable())
      acceptor.join();
    core.stop();
  }

#ifdef RC_TEST_HAVE_TRANSPORT
  std::unique_ptr<rc::transport::Connection> connect() {
    std::string err;
    auto c = rc::transport::connect(url, 5000, &err);
    EXPECT_NE(c, nullptr) << err;
    return c;
  }
  Bytes roundTrip(rc::transport::Connection &c, const Bytes &msg) {
    EXPECT_EQ(c.send(msg.data(), msg.size()), rc::transport::Status::Ok);
    Bytes reply;
    EXPECT_EQ(c.recv(reply, 10000), rc::transport::Status::Ok) << c.lastError();
    return reply;
  }
  std::unique_ptr<rc::transport::Listener> listener;
#endif
  TestManifest m;
  ServerCore core;
  std::string url;
  std::thread acceptor;
  std::atomic<bool> stop{false};
};

TEST_P(NetTest, TwoClientsAreIsolatedAndDisconnectFreesMemory) {
#ifdef RC_TEST_HAVE_TRANSPORT
  auto a = connect(), b = connect();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(asHelloReply(roundTrip(*a, hello({m.hash})))->ok());
  ASSERT_TRUE(asHelloReply(roundTrip(*b, hello({m.hash})))->ok());
  Bytes r = roundTrip(*a, batch(1, {cMalloc(1 << 20)}));
  uint64_t pa = resultAt(asBatchReply(r), 0)->addr();
  // A large upload and read-back through the transport.
  Bytes data(1 << 20);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint8_t(i * 7);
  r = roundTrip(*a, batch(2, {cH2D(pa, data), cD2H(pa, data.size())}));
  const wire::Result *res = resultAt(asBatchReply(r), 1);
  ASSERT_NE(res, nullptr);
  EXPECT_EQ(Bytes(res->payload()->begin(), res->payload()->end()), data);
  // B cannot read A's memory.
  r = roundTrip(*b, batch(1, {cD2H(pa, 16)}));
  ASSERT_EQ(asBatchReply(r)->errors()->size(), 1u);
  EXPECT_EQ(asBatchReply(r)->errors()->Get(0)->code(), 1);
  EXPECT_GE(core.bytesInUse(), uint64_t(1 << 20));
  a.reset(); // disconnect without Goodbye
  for (int i = 0; i < 500 && core.bytesInUse() != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(core.bytesInUse(), 0u);
  // B still works.
  r = roundTrip(*b, batch(2, {cMalloc(8)}));
  EXPECT_NE(resultAt(asBatchReply(r), 0)->addr(), 0u);
#endif
}

TEST_P(NetTest, LargeFirstMessageEndsTheConnectionBeforeItsSession) {
#ifdef RC_TEST_HAVE_TRANSPORT
  auto c = connect();
  ASSERT_TRUE(c);
  Bytes junk(300 << 10, 0x5a); // over the handshake's 256 KiB
  c->send(junk.data(), junk.size());
  Bytes reply;
  rc::transport::Status st = rc::transport::Status::Timeout;
  for (int i = 0; i < 100 && st == rc::transport::Status::Timeout; ++i)
    st = c->recv(reply, 100);
  EXPECT_EQ(st, rc::transport::Status::Closed);
  EXPECT_EQ(core.closedSessions(), 0u); // no session ever started
#endif
}

TEST_P(NetTest, EstablishedSessionTakesBatchesOverTheHandshakesBound) {
#ifdef RC_TEST_HAVE_TRANSPORT
  auto c = connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(asHelloReply(roundTrip(*c, hello({m.hash})))->ok());
  // At once after the HelloReply, a 5 MiB batch: 20 times the handshake's
  // bound, within the session's 64 MiB.
  Bytes r = roundTrip(*c, batch(1, {cMalloc(5 << 20)}));
  uint64_t a = resultAt(asBatchReply(r), 0)->addr();
  Bytes data(5 << 20, 0x33);
  r = roundTrip(*c, batch(2, {cH2D(a, data), cD2H(a + 100, 16)}));
  const wire::Result *res = resultAt(asBatchReply(r), 1);
  ASSERT_TRUE(res && res->payload() && res->payload()->size() == 16u);
  EXPECT_EQ(res->payload()->Get(0), 0x33);
#endif
}

INSTANTIATE_TEST_SUITE_P(Transports, NetTest,
                         ::testing::Values(std::string("tcp"),
                                           std::string("shm")),
                         [](const auto &info) { return info.param; });

} // namespace
