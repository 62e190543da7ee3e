// What a peer can make the listening side hold, and how long it can hold
// up others: message size claims, data sent far ahead, clients that never
// finish the handshake. Over tcp and shm; every wait is bounded.
#include "rc/transport.h"

#include "connection.h"
#include "raw_peer.h"
#include "test_support.h"
#include "unix_rendezvous.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

using namespace rc::transport;
using namespace rc::transport::test;

namespace {

long rssKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stol(line.substr(6));
  return -1;
}

// recv until something other than Timeout, at most `ms`.
Status recvUntil(Connection &c, std::vector<uint8_t> &m, int ms) {
  auto start = Clock::now();
  Status s = Status::Timeout;
  while (s == Status::Timeout && msSince(start) < ms)
    s = c.recv(m, 100);
  return s;
}

uint64_t queuedBytes(Connection &c) {
  return dynamic_cast<detail::FabricConnection &>(c).queuedBytes();
}

class Bounds : public ::testing::TestWithParam<std::string> {
protected:
  void listenWith(const ListenOptions &o) {
    std::string err;
    listener_ = listen(listenUrl(GetParam()), o, &err);
    ASSERT_TRUE(listener_) << err;
  }
  // Connects `peer` by hand; the server's end (null: the test failed).
  std::unique_ptr<Connection> acceptRawPeer(RawPeer &peer) {
    std::unique_ptr<Connection> s;
    Joiner server([&] { s = listener_->accept(10000); });
    std::string err;
    EXPECT_TRUE(peer.connect(listener_->address(), 10000, &err)) << err;
    server.join();
    EXPECT_TRUE(s) << listener_->lastError();
    return s;
  }
  bool streamAtABusyOwner(int busyMs,
                          const std::function<void(Connection &)> &whileBusy,
                          std::string *sendError);
  std::unique_ptr<Listener> listener_;
};

ListenOptions smallMessages(uint64_t maxMessage, uint64_t maxQueued) {
  ListenOptions o;
  o.accepted.maxMessage = maxMessage;
  o.accepted.maxQueued = maxQueued;
  return o;
}

TEST_P(Bounds, MessageOverTheLimitEndsTheConnectionNamingIt) {
  listenWith(smallMessages(64 << 10, 1 << 20));
  Joiner client([&] {
    std::string err;
    auto c = connect(listener_->address(), 10000, &err);
    ASSERT_TRUE(c) << err;
    auto fits = pattern(64 << 10, 1), over = pattern((64 << 10) + 1, 2);
    ASSERT_EQ(c->send(fits.data(), fits.size()), Status::Ok);
    c->send(over.data(), over.size()); // may fail: the server cuts it off
    std::vector<uint8_t> m;
    c->recv(m, 3000); // until the server is gone
  });
  auto s = listener_->accept(10000);
  ASSERT_TRUE(s) << listener_->lastError();
  std::vector<uint8_t> m;
  ASSERT_EQ(recvUntil(*s, m, 10000), Status::Ok) << s->lastError();
  EXPECT_TRUE(m == pattern(64 << 10, 1));
  EXPECT_EQ(recvUntil(*s, m, 10000), Status::Closed);
  EXPECT_NE(s->lastError().find("message of 65537 bytes"), std::string::npos)
      << s->lastError();
  EXPECT_NE(s->lastError().find("at most 65536 bytes"), std::string::npos)
      << s->lastError();
  s.reset();
}

TEST_P(Bounds, RaisedLimitTakesLargerMessages) {
  listenWith(smallMessages(64 << 10, 1 << 20));
  Joiner client([&] {
    std::string err;
    auto c = connect(listener_->address(), 10000, &err);
    ASSERT_TRUE(c) << err;
    ASSERT_EQ(c->send("hello", 5), Status::Ok);
    std::vector<uint8_t> m;
    ASSERT_EQ(c->recv(m, 10000), Status::Ok) << c->lastError(); // raised
    auto big = pattern(3 << 20, 3);
    ASSERT_EQ(c->send(big.data(), big.size()), Status::Ok) << c->lastError();
    c->recv(m, 5000);
  });
  auto s = listener_->accept(10000);
  ASSERT_TRUE(s) << listener_->lastError();
  std::vector<uint8_t> m;
  ASSERT_EQ(recvUntil(*s, m, 10000), Status::Ok) << s->lastError();
  s->limitReceive({8 << 20, 16 << 20});
  ASSERT_EQ(s->send("go", 2), Status::Ok);
  ASSERT_EQ(recvUntil(*s, m, 10000), Status::Ok) << s->lastError();
  EXPECT_TRUE(m == pattern(3 << 20, 3));
  ASSERT_EQ(s->send("bye", 3), Status::Ok);
}

TEST_P(Bounds, SizeClaimIsRefusedBeforeAnythingIsAllocated) {
  listenWith(smallMessages(256 << 10, 256 << 10));
  RawPeer peer;
  auto s = acceptRawPeer(peer);
  ASSERT_TRUE(s);
  long before = rssKb();
  // The first 4 KiB of a message said to be 512 MiB long: reassembling it
  // would need all of it at once.
  std::vector<uint8_t> piece(4096, 0x11);
  ASSERT_TRUE(peer.sendFrame(detail::FrameType::Data, 0, 512u << 20, 0,
                             piece.data(), piece.size()));
  peer.progress(50);
  std::vector<uint8_t> m;
  EXPECT_EQ(recvUntil(*s, m, 10000), Status::Closed);
  EXPECT_NE(s->lastError().find("message of 536870912 bytes"),
            std::string::npos)
      << s->lastError();
  EXPECT_LT(rssKb() - before, 64 << 10) << "KiB more resident after the claim";
}

TEST_P(Bounds, DataFarOutOfOrderIsCutOffAtTheCap) {
  listenWith(smallMessages(256 << 10, 256 << 10));
  RawPeer peer;
  auto s = acceptRawPeer(peer);
  ASSERT_TRUE(s);
  // First fragments of messages 1..200, never message 0: each claims
  // 256 KiB that could only be handed out once message 0 came.
  std::vector<uint8_t> piece(1024, 0x22);
  for (uint64_t seq = 1; seq <= 200; ++seq)
    if (!peer.sendFrame(detail::FrameType::Data, seq, 256 << 10, 0,
                        piece.data(), piece.size()))
      break; // the server cut us off
  peer.progress(50);
  std::vector<uint8_t> m;
  EXPECT_EQ(recvUntil(*s, m, 10000), Status::Closed);
  EXPECT_NE(s->lastError().find("ahead of what this side has read"),
            std::string::npos)
      << s->lastError();
  // 256 KiB queued + one 256 KiB message + 16 posted 1 MiB buffers.
  EXPECT_LE(queuedBytes(*s), (512u << 10) + 16 * ((1u << 20) + 32));
}

// A client streams `count` messages of 64 KiB at a server whose owner
// takes none for `busyMs` (only the keep-alive thread reads); then the
// owner takes them all, in order. Checks what holds meanwhile through
// `whileBusy` and returns whether every send succeeded (else *sendError).
bool Bounds::streamAtABusyOwner(
    int busyMs, const std::function<void(Connection &)> &whileBusy,
    std::string *sendError) {
  const int count = 200;
  const size_t size = 64 << 10;
  std::atomic<bool> allSent{false};
  Joiner client([&] {
    std::string err;
    auto c = connect(listener_->address(), 10000, &err);
    ASSERT_TRUE(c) << err;
    for (int i = 0; i < count; ++i) {
      auto m = pattern(size, uint32_t(i));
      if (c->send(m.data(), m.size()) != Status::Ok) {
        *sendError = std::to_string(i) + ": " + c->lastError();
        return;
      }
    }
    allSent = true;
    std::vector<uint8_t> m;
    c->recv(m, 10000);
  });
  auto s = listener_->accept(10000);
  EXPECT_TRUE(s) << listener_->lastError();
  if (!s)
    return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(busyMs));
  EXPECT_FALSE(allSent) << "the sender was not held back";
  whileBusy(*s);
  for (int i = 0; i < count; ++i) {
    std::vector<uint8_t> m;
    EXPECT_EQ(recvUntil(*s, m, 10000), Status::Ok)
        << i << " " << s->lastError() << "; the sender: " << *sendError;
    if (m != pattern(size, uint32_t(i))) {
      ADD_FAILURE() << "message " << i << " differs";
      break;
    }
  }
  EXPECT_EQ(s->send("done", 4), Status::Ok);
  client.join();
  return allSent;
}

TEST_P(Bounds, QueueStopsGrowingWhileTheOwnerIsBusy) {
  const uint64_t maxQueued = 1 << 20;
  listenWith(smallMessages(1 << 20, maxQueued));
  std::string sendError;
  bool allSent = streamAtABusyOwner(
      1500,
      [&](Connection &s) {
        // At most one completion batch (16 messages) past the bound.
        EXPECT_LE(queuedBytes(s), maxQueued + 16 * ((64 << 10) + 128));
        EXPECT_TRUE(s.peerAlive()) << s.lastError();
      },
      &sendError);
  EXPECT_TRUE(allSent) << sendError;
}

// The owner busy for longer than the liveness window (a session waiting
// minutes on the GPU while its client streams ahead): the held-back
// sender waits instead of taking the stall for a dead peer. It said
// "made no progress for 2501 ms" before the receiver's keep-alives told
// it that it holds back (a 4 GiB copy on a loaded CI machine).
TEST_P(Bounds, SenderWaitsPastTheLivenessWindowForABusyOwner) {
  listenWith(smallMessages(1 << 20, 1 << 20));
  std::string sendError;
  EXPECT_TRUE(streamAtABusyOwner(
      4000, [](Connection &) {}, &sendError))
      << sendError;
}

INSTANTIATE_TEST_SUITE_P(Providers, Bounds, ::testing::Values("tcp", "shm"),
                         [](const auto &info) { return info.param; });

// Serves every client the listener returns with an echo, until stopped.
struct EchoServer {
  explicit EchoServer(Listener &l)
      : thread([this, &l] {
          std::vector<std::unique_ptr<Connection>> conns;
          while (!stop) {
            if (auto c = l.accept(20))
              conns.push_back(std::move(c));
            for (auto &c : conns) {
              std::vector<uint8_t> m;
              if (c && c->recv(m, 0) == Status::Ok)
                c->send(m.data(), m.size());
            }
          }
        }) {}
  ~EchoServer() {
    stop = true;
    thread.join();
  }
  std::atomic<bool> stop{false};
  std::thread thread;
};

// A real client's connect and first round trip, in ms (-1: failed).
long connectAndEcho(const std::string &url, int timeoutMs) {
  auto start = Clock::now();
  std::string err;
  auto c = connect(url, timeoutMs, &err);
  if (!c) {
    ADD_FAILURE() << err;
    return -1;
  }
  std::vector<uint8_t> m;
  if (c->send("ping", 4) != Status::Ok || c->recv(m, timeoutMs) != Status::Ok) {
    ADD_FAILURE() << c->lastError();
    return -1;
  }
  return msSince(start);
}

// A local TCP port that completes connections in the kernel and never
// says anything: rxm's connection setup to it never finishes.
struct SilentTcpPort {
  SilentTcpPort() {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    ::listen(fd, 64);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    address.assign(reinterpret_cast<uint8_t *>(&a),
                   reinterpret_cast<uint8_t *>(&a) + sizeof a);
  }
  ~SilentTcpPort() { close(fd); }
  int fd;
  std::vector<uint8_t> address;
};

TEST(BoundsHandshake, TcpRequestsNamingSilentAddressesDelayNoOtherClient) {
  std::string err;
  auto l = listen("tcp://127.0.0.1:0", ListenOptions(), &err);
  ASSERT_TRUE(l) << err;
  EchoServer server(*l);
  SilentTcpPort silent;
  // Answered one after the other, each of these held the accept loop for
  // the liveness window (2.5 s): 25 s before the real client.
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(RawPeer::sendConnectNaming(l->address(), silent.address, &err))
        << err;
  long ms = connectAndEcho(l->address(), 5000);
  EXPECT_GE(ms, 0);
  EXPECT_LT(ms, 2000);
  std::printf("real client's connect + round trip behind 10 silent "
              "addresses: %ld ms\n",
              ms);
}

TEST(BoundsHandshake, ShmClientsThatSayNothingDelayNoOtherClient) {
  std::string err, name = "rcbounds_idle_" + std::to_string(getpid());
  auto l = listen("shm://" + name, ListenOptions(), &err);
  ASSERT_TRUE(l) << err;
  EchoServer server(*l);
  // Read one at a time, each of these held the listener for 1 s.
  std::vector<int> idle;
  for (int i = 0; i < 10; ++i)
    idle.push_back(rc::transport::detail::unixConnect(name, &err));
  for (int i = 0; i < 2; ++i) { // half a request: its length, then silence
    int fd = rc::transport::detail::unixConnect(name, &err);
    uint32_t n = 300;
    ASSERT_EQ(write(fd, &n, sizeof n), ssize_t(sizeof n));
    idle.push_back(fd);
  }
  long ms = connectAndEcho(l->address(), 5000);
  EXPECT_GE(ms, 0);
  EXPECT_LT(ms, 2000);
  std::printf("real client's connect + round trip behind 12 idle handshake "
              "sockets: %ld ms\n",
              ms);
  for (int fd : idle)
    close(fd);
}

TEST(BoundsHandshake, FullShmTableMakesRoomForANewClient) {
  std::string err, name = "rcbounds_full_" + std::to_string(getpid());
  ListenOptions o;
  o.maxHandshakes = 4;
  o.handshakeMs = 20000; // nobody expires during the test
  auto l = listen("shm://" + name, o, &err);
  ASSERT_TRUE(l) << err;
  EchoServer server(*l);
  std::vector<int> idle;
  for (int i = 0; i < 8; ++i)
    idle.push_back(rc::transport::detail::unixConnect(name, &err));
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // past grace
  long ms = connectAndEcho(l->address(), 5000);
  EXPECT_GE(ms, 0);
  EXPECT_LT(ms, 2000);
  for (int fd : idle)
    close(fd);
}

TEST(BoundsHandshake, ShmClientThatSaysNothingIsDroppedAfterItsTime) {
  std::string err, name = "rcbounds_late_" + std::to_string(getpid());
  ListenOptions o;
  o.handshakeMs = 300;
  auto l = listen("shm://" + name, o, &err);
  ASSERT_TRUE(l) << err;
  EchoServer server(*l);
  int fd = rc::transport::detail::unixConnect(name, &err);
  ASSERT_GE(fd, 0) << err;
  auto start = Clock::now();
  char c;
  // The listener closes its end: read() sees the end of the stream.
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  EXPECT_EQ(read(fd, &c, 1), 0);
  long ms = msSince(start);
  EXPECT_GE(ms, 250);
  EXPECT_LT(ms, 2000);
  close(fd);
}

} // namespace

namespace {

using rc::transport::detail::RegionLock;

// The region files /dev/shm holds for process `pid`.
int shmFilesOf(pid_t pid) {
  int n = 0;
  std::string prefix = std::to_string(pid) + ":";
  if (DIR *d = opendir("/dev/shm")) {
    while (dirent *e = readdir(d))
      n += std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0;
    closedir(d);
  }
  return n;
}

// The address in a peer description: "shm peer fi_shm://P:U:I (host ...".
std::string peerAddress(const Connection &c) {
  std::string d = c.peerDescription();
  size_t at = d.find("fi_shm://");
  return at == std::string::npos ? "" : d.substr(at, d.find(' ', at) - at);
}

// A child that connects to `url`, sends "hi", waits for "go", takes the
// lock of the server's region (as it does for every post) and is killed
// holding it.
pid_t clientDyingWithTheServersLock(const std::string &url) {
  pid_t child = fork();
  if (child != 0)
    return child;
  std::string err;
  auto c = connect(url, 10000, &err);
  std::vector<uint8_t> m;
  if (!c || c->send("hi", 2) != Status::Ok || c->recv(m, 10000) != Status::Ok)
    _exit(2);
  RegionLock lock = RegionLock::find(peerAddress(*c), uint32_t(getppid()));
  if (!lock.valid())
    _exit(3);
  lock.take();
  kill(getpid(), SIGKILL);
  _exit(4);
}

TEST(ShmKilledPeer, ServerSurvivesAClientKilledHoldingItsRegionLock) {
  std::string err;
  auto l = listen("shm://rcbounds_lock_" + std::to_string(getpid()), &err);
  ASSERT_TRUE(l) << err;
  pid_t child = clientDyingWithTheServersLock(l->address());
  ASSERT_GT(child, 0);
  auto s = l->accept(10000);
  ASSERT_TRUE(s) << l->lastError();
  std::vector<uint8_t> m;
  ASSERT_EQ(recvUntil(*s, m, 10000), Status::Ok) << s->lastError();
  ASSERT_EQ(s->send("go", 2), Status::Ok);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exit " << WEXITSTATUS(status);
  // Progress on this connection now finds the lock taken by the dead and
  // spun forever. The owner is busy elsewhere for a while first, so the
  // keep-alive thread's progress pass is the first to be caught.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto start = Clock::now();
  EXPECT_EQ(recvUntil(*s, m, 10000), Status::Closed);
  EXPECT_LT(msSince(start), 5000);
  EXPECT_NE(s->lastError().find("exited"), std::string::npos) << s->lastError();
  // And the files the killed client could not remove are gone with it.
  // Not checked to be there first: any shm listener, another test's run
  // beside this one included, removes the files of processes that are
  // gone (ListenerRemovesRegionFilesOfProcessesThatAreGone).
  s.reset();
  EXPECT_EQ(shmFilesOf(child), 0);
}

TEST(ShmKilledPeer, ClientSurvivesAServerKilledHoldingItsOwnRegionLock) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string url = "shm://rcbounds_srvlock_" + std::to_string(getpid());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string err;
    auto l = listen(url, &err);
    char ok = l ? 1 : 0;
    write(fds[1], &ok, 1);
    auto s = l ? l->accept(10000) : nullptr;
    std::vector<uint8_t> m;
    if (!s || s->recv(m, 10000) != Status::Ok)
      _exit(2);
    // The server's own region: it takes this lock to progress.
    auto &fc = dynamic_cast<rc::transport::detail::FabricConnection &>(*s);
    auto addr = fc.ownHello(0).address;
    RegionLock lock =
        RegionLock::find(std::string(addr.begin(), addr.end()), getpid());
    if (!lock.valid())
      _exit(3);
    lock.take();
    kill(getpid(), SIGKILL);
    _exit(4);
  }
  char ok = 0;
  ASSERT_EQ(read(fds[0], &ok, 1), 1);
  ASSERT_EQ(ok, 1);
  std::string err;
  auto c = connect(url, 10000, &err);
  ASSERT_TRUE(c) << err;
  ASSERT_EQ(c->send("hi", 2), Status::Ok);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exit " << WEXITSTATUS(status);
  // Posting into the dead server's region takes its lock: a send spun
  // forever there.
  auto start = Clock::now();
  Status st = Status::Ok;
  for (int i = 0; i < 100 && st == Status::Ok && msSince(start) < 10000; ++i) {
    st = c->send("more", 4);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(st, Status::Closed);
  EXPECT_LT(msSince(start), 5000);
  c.reset();
  EXPECT_EQ(shmFilesOf(child), 0);
}

TEST(ShmKilledPeer, ListenerRemovesRegionFilesOfProcessesThatAreGone) {
  pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  waitpid(dead, nullptr, 0);
  std::string name = "/dev/shm/" + std::to_string(dead) + ":" +
                     std::to_string(getuid()) + ":0";
  int fd = open(name.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string mine = "/dev/shm/" + std::to_string(getpid()) + ":" +
                     std::to_string(getuid()) + ":999999";
  fd = open(mine.c_str(), O_CREAT | O_WRONLY, 0600);
  close(fd);
  std::string err;
  auto l = listen("shm://rcbounds_sweep_" + std::to_string(getpid()), &err);
  ASSERT_TRUE(l) << err;
  EXPECT_NE(access(name.c_str(), F_OK), 0) << name << " is still there";
  EXPECT_EQ(access(mine.c_str(), F_OK), 0) << "a live process's file went";
  unlink(mine.c_str());
}

} // namespace
