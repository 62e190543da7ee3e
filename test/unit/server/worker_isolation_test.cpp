// The pieces of --isolation process that need no second process: the
// worker's ticket, the supervisor's messages to its workers, and a
// reserved session that opens only for its ticket (the processes
// themselves: cli_test.cpp's Isolated*, the runtime's integration tests
// and, on a GPU, GpuCli.ADeviceAssertEndsOnlyItsOwnSessionWithIsolation).
#include "host_session_fixture.h"
#include "isolation/worker_channel.h"
#include "rc/server/session_ticket.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

std::vector<uint8_t> ticketOf(uint8_t first) {
  std::vector<uint8_t> t(SessionTicket::kBytes, 0x5a);
  t[0] = first;
  return t;
}

TEST(SessionTicketTest, OnlyTheExpectedTicketIsRedeemedAndOnlyOnce) {
  SessionTicket ticket;
  std::string why;
  std::vector<uint8_t> t = ticketOf(1);
  EXPECT_FALSE(ticket.redeem(t.data(), t.size(), &why));
  EXPECT_NE(why.find("none is yet"), std::string::npos) << why;
  ticket.expect(t);
  std::vector<uint8_t> other = ticketOf(2);
  EXPECT_FALSE(ticket.redeem(other.data(), other.size(), &why));
  EXPECT_NE(why.find("reserved for another client"), std::string::npos);
  EXPECT_FALSE(ticket.redeem(t.data(), t.size() - 1, &why));
  EXPECT_FALSE(ticket.redeem(nullptr, 0, &why));
  EXPECT_FALSE(ticket.redeemed());
  EXPECT_TRUE(ticket.redeem(t.data(), t.size(), &why)) << why;
  EXPECT_TRUE(ticket.redeemed());
  EXPECT_FALSE(ticket.redeem(t.data(), t.size(), &why));
  EXPECT_NE(why.find("used already"), std::string::npos) << why;
}

TEST(WorkerChannelTest, MessagesReadBackAsWritten) {
  std::string address, summary;
  ASSERT_TRUE(parseReadyMessage(
      readyMessage("tcp://0.0.0.0:4100", "1 manifests, 2 modules"), &address,
      &summary));
  EXPECT_EQ(address, "tcp://0.0.0.0:4100");
  EXPECT_EQ(summary, "1 manifests, 2 modules");
  EXPECT_FALSE(parseReadyMessage("ticket 00", &address, &summary));
  std::vector<uint8_t> t = ticketOf(0xf0), back;
  ASSERT_TRUE(parseTicketMessage(ticketMessage(t), &back));
  EXPECT_EQ(back, t);
  EXPECT_FALSE(parseTicketMessage("ticket ", &back));
  EXPECT_FALSE(parseTicketMessage("ticket 0", &back));
  EXPECT_FALSE(parseTicketMessage("ticket zz", &back));
  EXPECT_FALSE(parseTicketMessage("ready x y", &back));
}

TEST(WorkerChannelTest, EachSideSeesTheOtherGo) {
  int fds[2];
  std::string error;
  ASSERT_TRUE(WorkerChannel::pair(fds, &error)) << error;
  WorkerChannel supervisor(fds[0]);
  auto worker = std::make_unique<WorkerChannel>(fds[1]);
  std::string got;
  EXPECT_EQ(supervisor.receive(&got, 0), WorkerChannel::Got::Nothing);
  ASSERT_TRUE(worker->send("ready tcp://127.0.0.1:1 s"));
  ASSERT_EQ(supervisor.receive(&got, 1000), WorkerChannel::Got::Message);
  EXPECT_EQ(got, "ready tcp://127.0.0.1:1 s");
  worker.reset();
  EXPECT_EQ(supervisor.receive(&got, 1000), WorkerChannel::Got::Closed);
  EXPECT_FALSE(supervisor.send("ticket 00"));
}

// A worker's session: every Hello without the ticket is refused naming
// why, and opening it takes the ticket.
class ReservedSessionTest : public HostSessionTest {
protected:
  void SetUp() override {
    HostSessionTest::SetUp();
    env->ticket = &ticket;
  }
  SessionTicket ticket;
};

TEST_F(ReservedSessionTest, OpensOnlyForItsTicket) {
  ticket.expect(ticketOf(7));
  Session::Next next;
  std::vector<Bytes> r = send(hello({m.hash}), &next);
  ASSERT_EQ(r.size(), 1u);
  const rc::wire::HelloReply *hr = asHelloReply(r[0]);
  ASSERT_TRUE(hr && !hr->ok());
  EXPECT_NE(hr->error()->str().find("reserved for another client"),
            std::string::npos);
  EXPECT_EQ(next, Session::Next::Close);
  session = std::make_unique<Session>(*env, 8);
  Bytes reply = send1(ticketHello({m.hash}, ticketOf(7)));
  hr = asHelloReply(reply);
  ASSERT_TRUE(hr && hr->ok()) << (hr && hr->error() ? hr->error()->str() : "");
  EXPECT_TRUE(ticket.redeemed());
  EXPECT_NE(malloc(64), 0u);
}

} // namespace
