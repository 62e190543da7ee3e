// The pieces of --isolation process that need no second process: the
// worker's ticket (its holder, its lapse, used once), the supervisor's
// messages to its workers, and a reserved session that opens only for its
// ticket (the processes
// themselves: cli_test.cpp's Isolated*, the runtime's integration tests
// and, on a GPU, GpuCli.ADeviceAssertEndsOnlyItsOwnSessionWithIsolation).
#include "host_session_fixture.h"
#include "isolation/worker_channel.h"
#include "isolation/worker_metrics.h"
#include "rc/server/session_ticket.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

std::vector<uint8_t> ticketOf(uint8_t first) {
  std::vector<uint8_t> t(SessionTicket::kBytes, 0x5a);
  t[0] = first;
  return t;
}

using Clock = SessionTicket::Clock;

SessionTicket::Terms termsOf(uint8_t first, const std::string &holder,
                             int lifeMs = 60000) {
  return {ticketOf(first), holder,
          Clock::now() + std::chrono::milliseconds(lifeMs)};
}

TEST(SessionTicketTest, OnlyTheExpectedTicketIsRedeemedAndOnlyOnce) {
  SessionTicket ticket;
  std::string why;
  bool retry = false;
  const std::string a = "key 'team-a'";
  std::vector<uint8_t> t = ticketOf(1);
  EXPECT_FALSE(ticket.redeem(t.data(), t.size(), a, 7, &why, &retry));
  EXPECT_NE(why.find("none is now"), std::string::npos) << why;
  EXPECT_TRUE(retry);
  ticket.expect(termsOf(1, a));
  std::vector<uint8_t> other = ticketOf(2);
  EXPECT_FALSE(ticket.redeem(other.data(), other.size(), a, 7, &why, &retry));
  EXPECT_NE(why.find("reserved for another client"), std::string::npos);
  EXPECT_FALSE(ticket.redeem(t.data(), t.size() - 1, a, 7, &why, &retry));
  EXPECT_FALSE(ticket.redeem(nullptr, 0, a, 7, &why, &retry));
  EXPECT_FALSE(ticket.redeemed());
  EXPECT_EQ(ticket.redeemedBy(), 0u);
  EXPECT_TRUE(ticket.redeem(t.data(), t.size(), a, 8, &why, &retry)) << why;
  EXPECT_TRUE(ticket.redeemed());
  EXPECT_EQ(ticket.redeemedBy(), 8u); // not 7, whose tickets were wrong
  EXPECT_FALSE(ticket.redeem(t.data(), t.size(), a, 9, &why, &retry));
  EXPECT_EQ(ticket.redeemedBy(), 8u);
  EXPECT_NE(why.find("used already"), std::string::npos) << why;
  EXPECT_FALSE(retry);
}

// A ticket taken off the wire is worth nothing to another key (or,
// without keys, another local user): it is refused, and stays its
// holder's.
TEST(SessionTicketTest, AnotherHolderNeverRedeemsItNorUsesItUp) {
  SessionTicket ticket;
  ticket.expect(termsOf(1, "key 'team-a'"));
  std::string why;
  bool retry = true;
  std::vector<uint8_t> t = ticketOf(1);
  for (const char *thief :
       {"key 'team-b'", "uid 1001 on this host", "10.0.0.9", "key 'team-a "})
    EXPECT_FALSE(ticket.redeem(t.data(), t.size(), thief, 7, &why, &retry))
        << thief;
  EXPECT_NE(why.find("issued to another client"), std::string::npos) << why;
  EXPECT_FALSE(retry);
  EXPECT_EQ(why.find("team-a"), std::string::npos) << "names its holder";
  EXPECT_FALSE(ticket.redeemed());
  EXPECT_TRUE(
      ticket.redeem(t.data(), t.size(), "key 'team-a'", 8, &why, &retry))
      << why;
}

// Unredeemed, a ticket lapses: then neither its holder nor anyone else
// may use it, and the worker is free for the next one.
TEST(SessionTicketTest, AnUnredeemedTicketLapses) {
  SessionTicket ticket;
  const std::string a = "uid 1000 on this host";
  ticket.expect(termsOf(1, a, 50));
  EXPECT_FALSE(ticket.lapseIfDue(Clock::now()));
  EXPECT_TRUE(ticket.expected());
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  std::string why;
  bool retry = false;
  std::vector<uint8_t> t = ticketOf(1);
  EXPECT_FALSE(ticket.redeem(t.data(), t.size(), a, 7, &why, &retry));
  EXPECT_NE(why.find("lapsed"), std::string::npos) << why;
  EXPECT_TRUE(retry); // a slow honest client gets a fresh one
  EXPECT_TRUE(ticket.lapseIfDue(Clock::now()));
  EXPECT_FALSE(ticket.expected());
  EXPECT_FALSE(ticket.lapseIfDue(Clock::now()));
  // Redeemed in time, it never lapses.
  ticket.expect(termsOf(2, a, 50));
  t = ticketOf(2);
  EXPECT_TRUE(ticket.redeem(t.data(), t.size(), a, 8, &why, &retry)) << why;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_FALSE(ticket.lapseIfDue(Clock::now()));
  EXPECT_TRUE(ticket.redeemed());
}

TEST(WorkerChannelTest, MessagesReadBackAsWritten) {
  std::string address, summary;
  ASSERT_TRUE(parseReadyMessage(
      readyMessage("tcp://0.0.0.0:4100", "1 manifests, 2 modules"), &address,
      &summary));
  EXPECT_EQ(address, "tcp://0.0.0.0:4100");
  EXPECT_EQ(summary, "1 manifests, 2 modules");
  EXPECT_FALSE(parseReadyMessage("ticket 00", &address, &summary));
  TicketOrder order{ticketOf(0xf0), 17, 1000, "uid 1000 on this host"};
  TicketOrder back;
  ASSERT_TRUE(parseTicketMessage(ticketMessage(order), &back));
  EXPECT_EQ(back.ticket, order.ticket);
  EXPECT_EQ(back.sessionId, 17u);
  EXPECT_EQ(back.lifeMs, 1000u);
  EXPECT_EQ(back.holder, "uid 1000 on this host");
  for (const char *bad :
       {"ticket ", "ticket 0", "ticket zz 1 1 h", "ticket 00 0 1 h",
        "ticket 00 x 1 h", "ticket 00 1 0 h", "ticket 00 1 1 ", "ticket 00 1 1",
        "ticket 00 1 99999999999 h", "ready x y"})
    EXPECT_FALSE(parseTicketMessage(bad, &back)) << bad;
  std::string json;
  ASSERT_TRUE(parseMetricsMessage(metricsMessage("{\"id\":3}"), &json));
  EXPECT_EQ(json, "{\"id\":3}");
  EXPECT_FALSE(parseMetricsMessage("metrics ", &json));
  EXPECT_FALSE(parseMetricsMessage("ready {", &json));
}

// A supervisor's metrics file lists its workers' sessions: the latest of
// each while live, then closed, and a session whose worker died before
// its last word is closed with how the worker ended.
TEST(WorkerMetricsTest, WorkersSessionsAsOneServersFile) {
  WorkerMetrics m;
  m.update(100, "{\"id\":1,\"state\":\"live\",\"batches\":1}");
  m.update(101, "{\"id\":2,\"state\":\"live\",\"batches\":5}");
  m.update(100, "{\"id\":1,\"state\":\"live\",\"batches\":2}");
  EXPECT_EQ(m.liveCount(), 2u);
  std::string text = m.json();
  EXPECT_NE(text.find("\"live_sessions\":2,\"closed_sessions\":0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"batches\":2"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"batches\":1"), std::string::npos) << text;
  uint64_t changes = m.changeCount();
  m.update(100, "{\"id\":1,\"state\":\"closed\",\"batches\":3}");
  m.ended(100, "exit status 0", true); // said its last word already
  m.ended(101, "signal 9 (Killed)", true);
  EXPECT_GT(m.changeCount(), changes);
  EXPECT_EQ(m.liveCount(), 0u);
  text = m.json();
  EXPECT_NE(text.find("\"live_sessions\":0,\"closed_sessions\":2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{\"id\":2,\"state\":\"closed\",\"close_reason\":"
                      "\"its worker process ended with signal 9 (Killed)\","
                      "\"batches\":5}"),
            std::string::npos)
      << text;
}

// A worker's totals for GET /metrics (--metrics-listen) travel whole, and
// nothing malformed passes for them.
TEST(WorkerChannelTest, TotalsMessageRoundTrips) {
  WorkerReport r;
  r.totals.opened = 2;
  r.totals.closedByReason["goodbye"] = 1;
  r.totals.closedByReason["refused"] = 1;
  r.totals.batches = 3;
  r.totals.bytesIn = 1234;
  r.totals.bytesOutShared = 9;
  const size_t malloc = size_t(rc::wire::Command::Malloc);
  r.totals.commands[malloc] = 2;
  r.totals.commandNs[malloc] = 777;
  r.totals.commandBuckets[malloc][0] = 1;
  r.totals.commandBuckets[malloc][kDurationBucketCount - 1] = 1;
  r.deviceBytes = 128;
  r.authFailures = 4;
  std::string text = totalsMessage(r);
  WorkerReport back;
  ASSERT_TRUE(parseTotalsMessage(text, &back)) << text;
  EXPECT_EQ(totalsMessage(back), text);
  EXPECT_EQ(back.totals.closedByReason, r.totals.closedByReason);
  EXPECT_EQ(back.totals.commandBuckets, r.totals.commandBuckets);
  EXPECT_EQ(back.deviceBytes, 128u);
  EXPECT_EQ(back.authFailures, 4u);
  ASSERT_TRUE(parseTotalsMessage("totals", &back));
  EXPECT_EQ(back.totals.opened, 0u);
  const std::string cmd = "totals cmd:" + std::to_string(malloc) + "=";
  for (const std::string &bad :
       {std::string("totalsx"), std::string("totals opened"),
        std::string("totals opened=-1"), std::string("totals nosuch=1"),
        std::string("totals closed:Bad Label=1"),
        std::string("totals closed:a\"b=1"), cmd + "1,2",
        "totals cmd:99999=" + std::string(40, '1'), cmd + "1,2,,3",
        std::string("metrics {}")})
    EXPECT_FALSE(parseTotalsMessage(bad, &back)) << bad;
}

// The supervisor's sums never go down: a worker's last report stays in
// them once it ended; a session it did not report closed counts as closed
// "worker_ended", and a session it never reported as opened and closed so.
TEST(WorkerMetricsTest, SumsKeepEndedWorkersLastReports) {
  WorkerMetrics m;
  WorkerReport a;
  a.totals.opened = 1;
  a.totals.batches = 2;
  a.deviceBytes = 64;
  m.report(100, a);
  a.totals.batches = 5;
  m.report(100, a); // replaces, does not add
  WorkerReport b;
  b.totals.opened = 1;
  b.totals.closedByReason["goodbye"] = 1;
  b.totals.batches = 1;
  b.authFailures = 1;
  m.report(101, b);
  WorkerReport s = m.sums();
  EXPECT_EQ(s.totals.opened, 2u);
  EXPECT_EQ(s.totals.batches, 6u);
  EXPECT_EQ(s.deviceBytes, 64u);
  EXPECT_EQ(s.authFailures, 1u);
  m.ended(101, "exit status 0", true);
  m.ended(100, "signal 9 (Killed)", true); // its session still open
  m.ended(102, "signal 9 (Killed)", true); // went before any report
  m.ended(103, "exit status 0", false);    // never served anyone
  s = m.sums();
  EXPECT_EQ(s.totals.opened, 3u);
  EXPECT_EQ(s.totals.batches, 6u);
  EXPECT_EQ(s.deviceBytes, 0u);
  EXPECT_EQ(s.authFailures, 1u);
  EXPECT_EQ(s.totals.closedByReason["goodbye"], 1u);
  EXPECT_EQ(s.totals.closedByReason["worker_ended"], 2u);
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
  // An in-process session's source (no connection) is its holder here.
  ticket.expect(termsOf(7, "an in-process client"));
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
