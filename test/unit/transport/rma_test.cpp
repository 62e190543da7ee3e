// What a peer may write by RMA, over both providers: exactly the bytes this
// side exposed, under the key it handed out, for as long as the exposure is
// not released, however many there are at once; a write beside the bytes,
// with another connection's key, or after the registration is gone lands
// nowhere. Every wait is bounded.
#include "rc/transport.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>

using namespace rc::transport;
using namespace rc::transport::test;

namespace {

// What the client asks its server to write: `size` bytes of pattern(seed)
// at region.addr + delta.
struct WriteOrder {
  RemoteRegion region;
  int64_t delta;
  uint64_t size;
  uint32_t seed;
};

// Server side: carries out write orders until the peer goes, answering each
// with one byte (1: the write completed here, which over shm says nothing
// about whether the target took it).
void carryOutWrites(Connection *c) {
  std::vector<uint8_t> m;
  while (c->recv(m, 10000) == Status::Ok && m.size() % sizeof(WriteOrder) == 0)
    for (size_t at = 0; at < m.size(); at += sizeof(WriteOrder)) {
      WriteOrder o;
      std::memcpy(&o, m.data() + at, sizeof o);
      auto data = pattern(o.size, o.seed);
      RemoteRegion dst{o.region.addr + uint64_t(o.delta), o.region.key};
      uint8_t done =
          c->writeRemote(data.data(), data.size(), dst) == Status::Ok;
      if (c->send(&done, 1) != Status::Ok)
        return;
    }
}

// Accepts `clients` connections and serves each in a thread of its own.
void serveWriters(Listener *listener, size_t clients) {
  std::vector<std::unique_ptr<Connection>> conns;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < clients; ++i) {
    conns.push_back(listener->accept(10000));
    if (!conns.back())
      break;
    threads.emplace_back(carryOutWrites, conns.back().get());
  }
  for (std::thread &t : threads)
    t.join();
}

class RmaBoundsTest : public ProviderTest {
protected:
  std::unique_ptr<Connection> connectClient() {
    std::string err;
    auto c = connect(listener_->address(), 10000, &err);
    EXPECT_TRUE(c) << err;
    return c;
  }
};

// A copy of 128 MiB reads back in 32 chunks, each exposed before the server
// writes any: registrations still awaited must outlive the cache's 16
// entries (over tcp the provider dropped the connection when one had been
// closed under a pending write).
TEST_P(RmaBoundsTest, ExposuresStayUntilReleasedHoweverMany) {
  Joiner server([&] { serveWriters(listener_.get(), 1); });
  auto c = connectClient();
  ASSERT_TRUE(c);
  const size_t kBuffers = 40, kSize = 1000;
  std::vector<std::vector<uint8_t>> bufs(kBuffers,
                                         std::vector<uint8_t>(kSize, 0xee));
  std::vector<WriteOrder> orders;
  for (size_t i = 0; i < kBuffers; ++i) {
    WriteOrder o{{}, 0, kSize, uint32_t(i + 1)};
    ASSERT_TRUE(c->exposeForWrite(bufs[i].data(), kSize, &o.region))
        << c->lastError();
    orders.push_back(o);
  }
  ASSERT_EQ(c->send(orders.data(), orders.size() * sizeof(WriteOrder)),
            Status::Ok);
  for (size_t i = 0; i < kBuffers; ++i) {
    std::vector<uint8_t> done;
    ASSERT_EQ(c->recv(done, 10000), Status::Ok)
        << "write " << i << ": " << c->lastError();
  }
  for (size_t i = 0; i < kBuffers; ++i) {
    EXPECT_EQ(bufs[i], pattern(kSize, uint32_t(i + 1)))
        << "buffer " << i << " of " << kBuffers << " was not written";
    c->release(orders[i].region);
  }
  c.reset();
  server.join();
}

// Each order on a connection of its own, all at once: over tcp the provider
// drops the connection of a peer whose write it refuses, which this side
// notices only by its silence.
TEST_P(RmaBoundsTest, WritesBesideTheExposedBytesLandNowhere) {
  const size_t kBefore = 100, kSize = 1000;
  struct Attempt {
    int64_t delta;
    uint64_t size;
    const char *what;
  };
  const std::vector<Attempt> attempts = {
      {0, kSize, "the exposed bytes (lands)"},
      {-1, 1, "the byte before"},
      {int64_t(kSize), 1, "the byte after"},
      {int64_t(kSize) - 1, 2, "across the end"},
      {-64, 65, "across the start"},
      {0, kSize + 1, "one byte too many"},
      {-int64_t(kBefore), 50, "within the page, before"},
      {int64_t(kSize) + 8, 64, "within the page, after"},
      // addr + size wraps around: a range check without overflow care
      // takes it for a small address.
      {-int64_t(uint64_t(1) << 20), 16, "far before"},
      {int64_t(1) << 40, 16, "far after"},
  };
  Joiner server([&] { serveWriters(listener_.get(), attempts.size()); });
  std::vector<std::unique_ptr<Connection>> conns;
  std::vector<std::vector<uint8_t>> pages;
  for (const Attempt &a : attempts) {
    conns.push_back(connectClient());
    ASSERT_TRUE(conns.back());
    pages.emplace_back(3 * 4096, 0xee);
    WriteOrder o{{}, a.delta, a.size, 9};
    ASSERT_TRUE(conns.back()->exposeForWrite(pages.back().data() + kBefore,
                                             kSize, &o.region));
    ASSERT_EQ(conns.back()->send(&o, sizeof o), Status::Ok);
  }
  // shm: the answer comes after the refused write (one command queue).
  // tcp: an accepted write would be answered at once.
  auto answered = Clock::now() + std::chrono::seconds(2);
  for (size_t i = 0; i < attempts.size(); ++i) {
    std::vector<uint8_t> done;
    long left = std::max(0L, -msSince(answered));
    Status st = conns[i]->recv(done, i == 0 ? 10000 : int(left));
    const std::vector<uint8_t> &page = pages[i];
    if (i == 0) {
      ASSERT_EQ(st, Status::Ok) << conns[i]->lastError();
      EXPECT_TRUE(std::equal(page.begin() + kBefore,
                             page.begin() + kBefore + kSize,
                             pattern(kSize, 9).begin()))
          << "the harness did not write where it may";
      continue;
    }
    EXPECT_EQ(std::count(page.begin(), page.end(), 0xee), long(page.size()))
        << "a write " << attempts[i].what << " (at delta " << attempts[i].delta
        << ", " << attempts[i].size << " bytes) changed the buffer";
  }
  conns.clear();
  server.join();
}

// Two clients of one listener: what one server-side connection exposes to
// its client, the other client cannot write, neither with the key and
// address handed out nor with its own key at that address.
TEST_P(RmaBoundsTest, AnotherConnectionsRegionIsOutOfReach) {
  std::unique_ptr<Connection> victimSide, attackerSide;
  {
    Joiner accept([&] {
      victimSide = listener_->accept(10000);
      attackerSide = listener_->accept(10000);
    });
    auto v = connectClient();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto a = connectClient();
    accept.join();
    ASSERT_TRUE(v && a && victimSide && attackerSide);
    std::vector<uint8_t> victimMemory(4096, 0x11), attackerMemory(4096, 0x22);
    RemoteRegion victimRegion, attackerRegion;
    ASSERT_TRUE(
        victimSide->exposeForWrite(victimMemory.data(), 4096, &victimRegion));
    ASSERT_TRUE(attackerSide->exposeForWrite(attackerMemory.data(), 4096,
                                             &attackerRegion));
    auto bytes = pattern(64, 3);
    // Writes that reach nothing complete, fail or end the connection,
    // depending on the provider: only the memory tells.
    a->writeRemote(bytes.data(), bytes.size(), victimRegion);
    a->writeRemote(bytes.data(), bytes.size(),
                   {victimRegion.addr, attackerRegion.key});
    a->send("x", 1);
    std::vector<uint8_t> m;
    attackerSide->recv(m, 5000);
    EXPECT_EQ(std::count(victimMemory.begin(), victimMemory.end(), 0x11), 4096)
        << "the other client's write landed in this connection's memory";
    // The victim's own client may write there.
    ASSERT_EQ(v->writeRemote(bytes.data(), bytes.size(), victimRegion),
              Status::Ok)
        << v->lastError();
    ASSERT_EQ(v->send("x", 1), Status::Ok);
    ASSERT_EQ(victimSide->recv(m, 5000), Status::Ok);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), victimMemory.begin()));
    victimSide->withdraw(victimMemory.data(), 4096);
    attackerSide->withdraw(attackerMemory.data(), 4096);
  }
}

INSTANTIATE_TEST_SUITE_P(Providers, RmaBoundsTest,
                         ::testing::Values("tcp", "shm"),
                         [](const auto &info) { return info.param; });

} // namespace
