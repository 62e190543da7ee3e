// tcp lanes (transport/src/lanes.h, lane_rendezvous.h): writes striped over
// extra sockets land exactly in the memory the reader exposed and nowhere
// else; a socket without the offer's token gets no lane; a stalled or
// refused write ends without hanging; withdrawing memory a lane is writing
// into interrupts it.
#include "lane_rendezvous.h"
#include "lanes.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <future>

using namespace rc::transport::detail;
using namespace rc::transport::test;

namespace {

bool alwaysWait() { return true; }

// Both ends of lanes between the test and itself over loopback tcp, with
// the memory each side exposes.
struct LanePair {
  std::shared_ptr<LaneRegions> serverRegions = std::make_shared<LaneRegions>();
  std::shared_ptr<LaneRegions> clientRegions = std::make_shared<LaneRegions>();
  std::unique_ptr<Lanes> server, client;
  std::string serverError, clientError;

  // The client dials with `token` (the offer's unless given).
  void connect(int width, const LaneToken *token = nullptr,
               int collectMs = 3000) {
    std::string err;
    auto offer = LaneOffer::open("127.0.0.1", width, &err);
    ASSERT_TRUE(offer) << err;
    std::atomic<bool> stop{false};
    auto collected = std::async(std::launch::async, [&] {
      return offer->collect(Clock::now() + std::chrono::milliseconds(collectMs),
                            stop, serverRegions, &serverError);
    });
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(offer->port());
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    client = dialLanes(to, token ? *token : offer->token(), width,
                       Clock::now() + std::chrono::seconds(3), clientRegions,
                       &clientError);
    server = collected.get();
  }
};

// Memory with guard bytes around what is exposed.
struct Guarded {
  static constexpr size_t kGuard = 4096;
  explicit Guarded(size_t size) : bytes(size + 2 * kGuard, 0xee), size(size) {}
  uint8_t *exposed() { return bytes.data() + kGuard; }
  bool guardsIntact() const {
    return std::all_of(bytes.begin(), bytes.begin() + kGuard,
                       [](uint8_t b) { return b == 0xee; }) &&
           std::all_of(bytes.end() - kGuard, bytes.end(),
                       [](uint8_t b) { return b == 0xee; });
  }
  bool untouched() const {
    return std::all_of(bytes.begin(), bytes.end(),
                       [](uint8_t b) { return b == 0xee; });
  }
  std::vector<uint8_t> bytes;
  size_t size;
};

TEST(Lanes, WritesLandExactlyWhereExposedBothWays) {
  LanePair p;
  p.connect(3);
  ASSERT_TRUE(p.server && p.client) << p.serverError << " / " << p.clientError;
  EXPECT_EQ(p.client->width(), 3u);
  EXPECT_EQ(p.server->width(), 3u);
  const size_t kSize = (6 << 20) + 11;
  Guarded atServer(kSize), atClient(kSize);
  p.serverRegions->replace({{41, atServer.exposed(), kSize}}, [] {});
  p.clientRegions->replace({{42, atClient.exposed(), kSize}}, [] {});
  // Three writes of one batch, odd sizes and offsets, one of one byte.
  auto a = pattern(1, 1), b = pattern((300 << 10) + 3, 2),
       c = pattern((5 << 20) + 7, 3);
  const uint64_t offB = 1, offC = 1 + b.size() + 5;
  std::string err;
  ASSERT_TRUE(p.client->write({{a.data(), a.size(), 41, 0},
                               {b.data(), b.size(), 41, offB},
                               {c.data(), c.size(), 41, offC}},
                              alwaysWait, &err))
      << err;
  EXPECT_EQ(atServer.exposed()[0], a[0]);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), atServer.exposed() + offB));
  EXPECT_TRUE(std::equal(c.begin(), c.end(), atServer.exposed() + offC));
  EXPECT_TRUE(atServer.guardsIntact());
  // The other way: the whole region at once.
  auto back = pattern(kSize, 4);
  ASSERT_TRUE(p.server->write({{back.data(), kSize, 42, 0}}, alwaysWait, &err))
      << err;
  EXPECT_TRUE(std::equal(back.begin(), back.end(), atClient.exposed()));
  EXPECT_TRUE(atClient.guardsIntact());
}

TEST(Lanes, WritesOutsideTheExposedMemoryLandNowhere) {
  const size_t kSize = 1 << 20;
  struct Attempt {
    uint64_t key, offset, size;
    const char *what;
    bool partlyInside; // slices inside may land (as with fi_write's pieces)
  };
  const std::vector<Attempt> attempts = {
      {7, 1, kSize, "one byte past the end", true},
      {7, kSize, 1, "the byte after", false},
      {8, 0, 1024, "a key never exposed", false},
      // offset + size wraps: a check without overflow care passes it.
      {7, UINT64_MAX - 10, 64 << 10, "an offset that wraps", false},
  };
  for (const Attempt &a : attempts) {
    LanePair p;
    p.connect(2);
    ASSERT_TRUE(p.server && p.client);
    Guarded memory(kSize);
    p.serverRegions->replace({{7, memory.exposed(), kSize}}, [] {});
    auto bytes = pattern(a.size, 5);
    std::string err;
    EXPECT_FALSE(p.client->write({{bytes.data(), a.size, a.key, a.offset}},
                                 alwaysWait, &err))
        << a.what << " was acknowledged";
    EXPECT_TRUE(memory.guardsIntact()) << a.what << " wrote beside the memory";
    if (!a.partlyInside)
      EXPECT_TRUE(memory.untouched()) << a.what << " changed the memory";
    EXPECT_TRUE(p.server->failed()) << a.what;
    EXPECT_TRUE(p.client->failed()) << a.what;
    // Failed lanes stay failed: later writes are refused at once.
    EXPECT_FALSE(p.client->write({{bytes.data(), 1, 7, 0}}, alwaysWait, &err));
  }
}

TEST(Lanes, ASocketWithoutTheTokenGetsNoLane) {
  LanePair p;
  LaneToken wrong{};
  wrong[3] = 1;
  p.connect(2, &wrong, /*collectMs=*/400);
  EXPECT_FALSE(p.server);
  EXPECT_NE(p.serverError.find("did not come in time"), std::string::npos)
      << p.serverError;
  // The dialer's sockets were closed: its writes fail instead of hanging.
  ASSERT_TRUE(p.client) << p.clientError;
  auto bytes = pattern(1 << 20, 6);
  std::string err;
  auto start = Clock::now();
  EXPECT_FALSE(
      p.client->write({{bytes.data(), bytes.size(), 1, 0}}, alwaysWait, &err));
  EXPECT_LT(msSince(start), 2000);
}

// A peer that stops reading: the writer gives up once keepWaiting says so
// (the connection is gone), whatever its sockets hold.
TEST(Lanes, AWriteToAPeerThatStopsReadingEndsWhenTheConnectionDoes) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  Lanes writer({sv[0]}, {}, std::make_shared<LaneRegions>());
  auto bytes = pattern(64 << 20, 7); // far beyond the socket's buffers
  auto start = Clock::now();
  std::string err;
  EXPECT_FALSE(writer.write(
      {{bytes.data(), bytes.size(), 1, 0}},
      [&] { return msSince(start) < 200; }, &err));
  EXPECT_LT(msSince(start), 2000);
  EXPECT_NE(err.find("connection ended"), std::string::npos) << err;
  close(sv[1]);
}

// rc-server withdraws a session's upload ring when the session ends; a
// client that sent half a piece and stopped must not hold that up, nor
// write into the memory afterwards.
TEST(Lanes, WithdrawingMemoryInterruptsAStalledPiece) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  auto regions = std::make_shared<LaneRegions>();
  Guarded memory(1 << 20);
  regions->replace({{9, memory.exposed(), memory.size}}, [] {});
  Lanes reader({}, {sv[1]}, regions);
  LanePiece h{kLaneMagic, 0, 9, 0, memory.size, 0};
  auto half = pattern(1000, 8);
  ASSERT_EQ(send(sv[0], &h, sizeof h, 0), ssize_t(sizeof h));
  ASSERT_EQ(send(sv[0], half.data(), half.size(), 0), ssize_t(half.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto start = Clock::now();
  regions->replace({}, [&] { reader.abort("withdrawn"); });
  EXPECT_LT(msSince(start), 2000);
  EXPECT_TRUE(reader.failed());
  std::vector<uint8_t> more(4096, 1);
  send(sv[0], more.data(), more.size(), MSG_NOSIGNAL);
  EXPECT_TRUE(memory.guardsIntact());
  EXPECT_TRUE(std::equal(half.begin(), half.end(), memory.exposed()));
  EXPECT_EQ(memory.exposed()[half.size()], 0xee)
      << "bytes sent after the withdrawal landed";
  close(sv[0]);
}

} // namespace
