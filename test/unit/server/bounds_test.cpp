// What a client can make rc-server hold (limits.h): connections that never
// send their first message share one thread and are dropped in time;
// read-back replies and pinned memory are bounded per session and over
// all sessions, each with an error that names the bound and a session
// that goes on. (The handshake's message bound over real transports:
// net_test.cpp.)
#include "host_session_fixture.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace rc::server;
using namespace rc::server::test;
using Clock = std::chrono::steady_clock;

namespace {

long msSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t)
      .count();
}

int threadsOfThisProcess() {
  int n = 0;
  if (DIR *d = opendir("/proc/self/task")) {
    while (dirent *e = readdir(d))
      n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

template <class F> bool waitFor(F pred, int ms = 5000) {
  auto start = Clock::now();
  while (!pred() && msSince(start) < ms)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return pred();
}

bool helloOk(const Bytes &reply) {
  const wire::HelloReply *hr = asHelloReply(reply);
  return hr && hr->ok();
}

class CoreBounds : public ::testing::Test {
protected:
  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    m = writeTestManifest();
  }
  void start(const ServerLimits &limits) {
    ServerOptions o;
    o.manifests = {m.path};
    o.testDevice = true;
    o.settings.limits = limits;
    std::string err;
    ASSERT_TRUE(core.start(o, &err)) << err;
  }
  // A connection served by the core; the client's end.
  std::unique_ptr<MemConnection> connect() {
    auto ends = memPair();
    core.serve(std::move(ends.second));
    return std::move(ends.first);
  }
  TestManifest m;
  ServerCore core;
};

TEST_F(CoreBounds, SilentConnectionsShareOneThreadAndGoAfterTheirTime) {
  ServerLimits l;
  l.helloTimeoutMs = 600;
  start(l);
  int threadsBefore = threadsOfThisProcess();
  std::vector<std::unique_ptr<MemConnection>> silent;
  for (int i = 0; i < 12; ++i)
    silent.push_back(connect());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(core.waitingConnections(), 12u);
  EXPECT_EQ(core.sessionThreads(), 0u);
  // The lobby's thread is the only new one (it starts with the core).
  EXPECT_LE(threadsOfThisProcess(), threadsBefore + 1);
  // An honest client meanwhile is served at once.
  MemClient honest{connect()};
  auto t = Clock::now();
  EXPECT_TRUE(helloOk(honest.roundTrip(hello({m.hash}))));
  EXPECT_LT(msSince(t), 500);
  // Past their time the silent ones are closed: their peer sees it.
  EXPECT_TRUE(waitFor([&] { return core.waitingConnections() == 0; }));
  for (auto &c : silent)
    EXPECT_FALSE(c->peerAlive());
  EXPECT_TRUE(honest.conn->peerAlive());
}

TEST_F(CoreBounds, ANewcomerPushesOutTheOldestSilentConnection) {
  ServerLimits l;
  l.maxPending = 4;
  l.helloTimeoutMs = 60000;
  start(l);
  std::vector<std::unique_ptr<MemConnection>> silent;
  for (int i = 0; i < 6; ++i)
    silent.push_back(connect());
  EXPECT_TRUE(waitFor([&] { return core.waitingConnections() == 4; }));
  EXPECT_FALSE(silent[0]->peerAlive());
  EXPECT_FALSE(silent[1]->peerAlive());
  EXPECT_TRUE(silent[5]->peerAlive());
  // The newest of them is still served when it speaks.
  MemClient late{std::move(silent[5])};
  EXPECT_TRUE(helloOk(late.roundTrip(hello({m.hash}))));
}

TEST_F(CoreBounds, ASessionThatDoesNotFinishItsHandshakeIsClosedInTime) {
  ServerLimits l;
  l.helloTimeoutMs = 500;
  start(l);
  // A first message that is no Hello starts no session's context, and
  // leaves the handshake unfinished.
  MemClient c{connect()};
  const wire::HelloReply *hr;
  Bytes r = c.roundTrip(batch(1, {cMalloc(64)}));
  EXPECT_TRUE(asBatchReply(r) || ((hr = asHelloReply(r)) && !hr->ok()));
  EXPECT_TRUE(waitFor([&] { return !c.conn->peerAlive(); }, 3000));
  EXPECT_TRUE(waitFor([&] { return core.closedSessions() == 1; }));
}

TEST_F(CoreBounds, StartRemovesSharedMemoryFilesOfServersThatAreGone) {
  pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  waitpid(dead, nullptr, 0);
  std::string gone = "/dev/shm/rc-host-" + std::to_string(dead) + "-0123",
              live = "/dev/shm/rc-host-" + std::to_string(getpid()) + "-4567";
  for (const std::string &f : {gone, live})
    close(open(f.c_str(), O_CREAT | O_WRONLY, 0600));
  start(ServerLimits());
  EXPECT_NE(access(gone.c_str(), F_OK), 0) << gone << " is still there";
  EXPECT_EQ(access(live.c_str(), F_OK), 0) << "a live server's file went";
  unlink(live.c_str());
}

// Sessions that share budgets, on the host test device.
class SessionBounds : public HostSessionTest {
protected:
  void SetUp() override {
    limits.replyBytes = 1 << 20;
    limits.replyTotalBytes = 1 << 20;
    limits.sharedHostBytes = 1 << 20;
    limits.pinnedTotalBytes = 3 << 20;
    budgets = std::make_unique<ServerBudgets>(limits);
    HostSessionTest::SetUp();
    env->limits = &limits;
    env->budgets = budgets.get();
    session->useConnection(&local);
    ASSERT_TRUE(helloOk(send1(hello({m.hash}))));
  }
  // The session gives back to the budgets and withdraws from `local`, both
  // members of this class, which go before the base's members.
  void TearDown() override { session.reset(); }
  std::unique_ptr<Session> another(rc::transport::Connection *conn) {
    auto s = std::make_unique<Session>(*env, 8);
    s->useConnection(conn);
    std::vector<Bytes> replies;
    Bytes h = hello({m.hash}, 1, 2 << 20);
    s->handle(h.data(), h.size(), replies);
    EXPECT_TRUE(replies.size() == 1 && helloOk(replies[0]));
    return s;
  }
  // The local client: same host, and its upload ring is exposed "by RMA".
  struct Local : NullConnection {
    bool sameHost() const override { return true; }
    bool exposeForWrite(void *, size_t,
                        rc::transport::RemoteRegion *out) override {
      *out = {1, 1};
      return true;
    }
  } local;
  ServerLimits limits;
  std::unique_ptr<ServerBudgets> budgets;
};

TEST_F(SessionBounds, ReadBackOverTheSessionBoundIsRefusedNamingIt) {
  uint64_t a = malloc(2 << 20);
  std::string e =
      expectError(batch(2, {cD2H(a, 512 << 10), cD2H(a, 600 << 10)}), 1,
                  1 /* cudaErrorInvalidValue */, 2);
  EXPECT_NE(e.find("exceed 1048576 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("RC_SERVER_MAX_REPLY_MIB"), std::string::npos) << e;
  // The session goes on, and the next batch has its own allowance.
  Bytes r = send1(batch(3, {cD2H(a, 1 << 20)}));
  const wire::Result *res = resultAt(asBatchReply(r), 0);
  ASSERT_TRUE(res && res->payload());
  EXPECT_EQ(res->payload()->size(), 1u << 20);
}

TEST_F(SessionBounds, ReadBacksOfAllSessionsShareOneBudget) {
  uint64_t a = malloc(1 << 20);
  // This session's reply holds 768 KiB until its next batch.
  Bytes r = send1(batch(2, {cD2H(a, 768 << 10)}));
  ASSERT_TRUE(resultAt(asBatchReply(r), 0));
  EXPECT_EQ(budgets->reply.used(), 768u << 10);
  Local other;
  auto s2 = another(&other);
  std::vector<Bytes> replies;
  Bytes m2 = batch(1, {cMalloc(1 << 20)});
  s2->handle(m2.data(), m2.size(), replies);
  uint64_t b = resultAt(asBatchReply(replies[0]), 0)->addr();
  replies.clear();
  Bytes read = batch(2, {cD2H(b, 512 << 10)});
  s2->handle(read.data(), read.size(), replies);
  const wire::BatchReply *br = asBatchReply(replies[0]);
  ASSERT_TRUE(br && br->errors() && br->errors()->size() == 1);
  std::string e = br->errors()->Get(0)->message()->str();
  EXPECT_EQ(br->errors()->Get(0)->code(), 2); // cudaErrorMemoryAllocation
  EXPECT_NE(e.find("RC_SERVER_REPLY_TOTAL_MIB"), std::string::npos) << e;
  // What the other session holds is not this one's to see.
  EXPECT_EQ(e.find("in use"), std::string::npos) << e;
  EXPECT_EQ(e.find(std::to_string(768 << 10)), std::string::npos) << e;
  // Once the first session's reply went out (its next batch), it fits.
  send1(batch(3, {cMalloc(16)}));
  EXPECT_EQ(budgets->reply.used(), 0u);
  replies.clear();
  s2->handle(read.data(), read.size(), replies);
  const wire::Result *res = resultAt(asBatchReply(replies[0]), 0);
  ASSERT_TRUE(res && res->payload());
  EXPECT_EQ(res->payload()->size(), 512u << 10);
  s2.reset();
  session.reset();
  EXPECT_EQ(budgets->reply.used(), 0u);
}

TEST_F(SessionBounds, SharedMemoryIsBoundedPerSessionAndInTotal) {
  // The first session has no ring (it asked for none): 1 MiB of its own.
  std::string e = expectError(batch(2, {cHostShare(2 << 20)}), 0,
                              2 /* cudaErrorMemoryAllocation */, 2);
  EXPECT_NE(e.find("RC_SERVER_SHARED_HOST_MIB"), std::string::npos) << e;
  Bytes r = send1(batch(3, {cHostShare(1 << 20)}));
  const wire::Result *res = resultAt(asBatchReply(r), 0);
  ASSERT_NE(res, nullptr);
  uint64_t region = res->addr();
  EXPECT_EQ(budgets->pinned.used(), 1u << 20);
  // A second session's 2 MiB ring takes the rest of the 3 MiB total.
  Local other;
  auto s2 = another(&other);
  EXPECT_EQ(budgets->pinned.used(), 3u << 20);
  std::vector<Bytes> replies;
  Bytes share = batch(1, {cHostShare(512 << 10)});
  s2->handle(share.data(), share.size(), replies);
  const wire::BatchReply *br = asBatchReply(replies[0]);
  ASSERT_TRUE(br && br->errors() && br->errors()->size() == 1);
  e = br->errors()->Get(0)->message()->str();
  EXPECT_NE(e.find("RC_SERVER_PINNED_TOTAL_MIB"), std::string::npos) << e;
  EXPECT_EQ(e.find("in use"), std::string::npos) << e;
  // Freed by the first session: the second one's fits.
  send1(batch(4, {cHostUnshare(region)}));
  replies.clear();
  s2->handle(share.data(), share.size(), replies);
  br = asBatchReply(replies[0]);
  ASSERT_TRUE(br);
  EXPECT_TRUE(!br->errors() || br->errors()->size() == 0);
  s2.reset(); // its ring and region go back
  EXPECT_EQ(budgets->pinned.used(), 0u);
}

TEST_F(SessionBounds, NoUploadRingWhenThePinnedTotalIsUsedUp) {
  Local a, b;
  auto s2 = another(&a); // 2 MiB ring
  auto s3 = std::make_unique<Session>(*env, 9);
  s3->useConnection(&b);
  std::vector<Bytes> replies;
  Bytes h = hello({m.hash}, 1, 2 << 20);
  s3->handle(h.data(), h.size(), replies);
  const wire::HelloReply *hr = asHelloReply(replies[0]);
  ASSERT_TRUE(hr && hr->ok()); // served, with large uploads inline
  EXPECT_EQ(hr->upload_ring(), nullptr);
  EXPECT_EQ(budgets->pinned.used(), 2u << 20);
}

TEST(ServerLimitsFromEnv, BadValuesAreNamedAndGoodOnesApplied) {
  ServerSettings s;
  const ServerLimits &l = s.limits;
  std::string err;
  setenv("RC_SERVER_MAX_QUEUED_MIB", "12", 1);
  setenv("RC_SERVER_MAX_PENDING", "3", 1);
  EXPECT_TRUE(ServerSettings::fromEnv(&s, &err)) << err;
  EXPECT_EQ(l.queuedBytes, 12u << 20);
  EXPECT_EQ(l.maxPending, 3);
  setenv("RC_SERVER_MAX_REPLY_MIB", "4096", 1); // past a flatbuffer's reach
  EXPECT_FALSE(ServerSettings::fromEnv(&s, &err));
  EXPECT_NE(err.find("RC_SERVER_MAX_REPLY_MIB=4096"), std::string::npos) << err;
  setenv("RC_SERVER_MAX_REPLY_MIB", "12x", 1);
  EXPECT_FALSE(ServerSettings::fromEnv(&s, &err));
  unsetenv("RC_SERVER_MAX_QUEUED_MIB");
  unsetenv("RC_SERVER_MAX_PENDING");
  unsetenv("RC_SERVER_MAX_REPLY_MIB");
}

} // namespace
