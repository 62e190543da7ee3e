// Sealed connections (docs/transport-internals/connections.md, "Sealing"): what
// crosses the sockets is not the plaintext; every message, RMA write and lane
// piece arrives as sent; a byte flipped, a record sent twice or one swallowed
// on the wire (wire_tap.h, at the socket layer) ends the connection on both
// sides with a reason that names it; clear connections stay clear. Runs
// over tcp on loopback, where the transport seals whatever it is told to
// (only rc-server decides by address), and, where the test may make a
// network namespace, over a non-loopback address too (OffLoopback*).
#include "lane_rendezvous.h"
#include "lanes.h"
#include "record_cipher.h"
#include "sealed_frames.h"

#include "test_support.h"
#include "wire_tap.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <random>
#include <thread>

using namespace rc::transport;
using namespace rc::transport::detail;
using namespace rc::transport::test;

namespace {

TrafficKey randomKey(uint32_t seed) {
  TrafficKey k;
  std::mt19937 gen(seed);
  for (auto &b : k.key)
    b = uint8_t(gen());
  for (auto &b : k.iv)
    b = uint8_t(gen());
  return k;
}

// A marker that cannot appear by chance in ciphertext.
std::vector<uint8_t> secretText(size_t size) {
  const char *line = "PROMPT: the secret plans of the tenant, in plain text. ";
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i)
    v[i] = uint8_t(line[i % std::strlen(line)]);
  return v;
}
std::vector<uint8_t> marker() { return secretText(48); }

// A connected tcp pair (client, server) on `host`, sealed with mirrored
// keys unless told otherwise.
struct Pair {
  std::unique_ptr<Listener> listener;
  std::unique_ptr<Connection> client, server;

  explicit Pair(bool seal = true, const std::string &host = "127.0.0.1") {
    std::string err;
    listener = listen("tcp://" + host + ":0", &err);
    EXPECT_TRUE(listener) << err;
    if (!listener)
      return;
    auto accepted =
        std::async(std::launch::async, [&] { return listener->accept(10000); });
    client = connect(listener->address(), 10000, &err);
    server = accepted.get();
    EXPECT_TRUE(client && server) << err;
    if (!client || !server || !seal)
      return;
    SealKeys c{randomKey(1), randomKey(2)}, s{c.receive, c.send};
    EXPECT_TRUE(server->seal(s, false, &err)) << err;
    EXPECT_TRUE(client->seal(c, false, &err)) << err;
  }
};

// Waits for recv to fail and returns why.
std::string endOf(Connection &c) {
  std::vector<uint8_t> m;
  for (int i = 0; i < 100; ++i) {
    Status st = c.recv(m, 100);
    if (st != Status::Ok && st != Status::Timeout)
      return c.lastError();
  }
  return "(still open: " + c.lastError() + ")";
}

TEST(RecordCipher, RoundTripsAndRefusesAnotherNumberOrAChangedByte) {
  TrafficKey k = randomKey(7);
  RecordCipher seal(k, kFrameStream, RecordCipher::Mode::Seal);
  RecordCipher open(k, kFrameStream, RecordCipher::Mode::Open);
  RecordCipher otherStream(k, kLanePieceStream, RecordCipher::Mode::Open);
  auto plain = pattern(100000, 3);
  std::vector<uint8_t> ct(plain.size()), back(plain.size());
  uint8_t tag[kRecordTagBytes], aad[8] = {1, 2, 3};
  ASSERT_TRUE(seal.seal(5, aad, sizeof aad, plain.data(), ct.data(),
                        plain.size(), tag));
  EXPECT_NE(ct, plain);
  EXPECT_TRUE(
      open.open(5, aad, sizeof aad, ct.data(), back.data(), ct.size(), tag));
  EXPECT_EQ(back, plain);
  EXPECT_FALSE(
      open.open(6, aad, sizeof aad, ct.data(), back.data(), ct.size(), tag));
  EXPECT_FALSE(otherStream.open(5, aad, sizeof aad, ct.data(), back.data(),
                                ct.size(), tag));
  ct[777] ^= 1;
  EXPECT_FALSE(
      open.open(5, aad, sizeof aad, ct.data(), back.data(), ct.size(), tag));
  ct[777] ^= 1;
  aad[0] ^= 1;
  EXPECT_FALSE(
      open.open(5, aad, sizeof aad, ct.data(), back.data(), ct.size(), tag));
}

TEST(SealedFrames, NameAReplayedADroppedAndAChangedRecord) {
  TrafficKey k = randomKey(9);
  FrameSealer sealer(k);
  FrameOpener opener(k);
  FrameHeader h{kFrameMagic, uint16_t(FrameType::Data), 0, 0, 10, 0};
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < 3; ++i) {
    std::vector<uint8_t> f(sizeof h + 10 + kSealOverhead);
    auto text = pattern(10, uint32_t(i));
    h.seq = uint64_t(i);
    ASSERT_TRUE(sealer.seal(h, text.data(), 10, f.data()));
    frames.push_back(f);
  }
  auto tryOpen = [&](std::vector<uint8_t> f, std::string *why) {
    FrameHeader fh;
    std::memcpy(&fh, f.data(), sizeof fh);
    size_t plain = 0;
    uint8_t out[16];
    const uint8_t *p = f.data() + sizeof fh;
    size_t n = f.size() - sizeof fh;
    return opener.check(p, n, &plain, why) && opener.open(fh, p, n, out, why);
  };
  std::string why;
  ASSERT_TRUE(tryOpen(frames[0], &why)) << why;
  EXPECT_FALSE(tryOpen(frames[0], &why));
  EXPECT_NE(why.find("replayed"), std::string::npos) << why;
  EXPECT_FALSE(tryOpen(frames[2], &why));
  EXPECT_NE(why.find("dropped"), std::string::npos) << why;
  auto changed = frames[1];
  changed[sizeof(FrameHeader) + 12] ^= 0x80;
  EXPECT_FALSE(tryOpen(changed, &why));
  EXPECT_NE(why.find("changed in transit"), std::string::npos) << why;
  EXPECT_TRUE(tryOpen(frames[1], &why)) << why;
}

// Messages of many sizes, one after another and in a burst, arrive whole and
// in order, and are marked sealed.
TEST(Sealing, MessagesOfEverySizeArriveInOrder) {
  Pair p;
  ASSERT_TRUE(p.client && p.server);
  EXPECT_TRUE(p.client->sealed() && p.server->sealed());
  std::vector<size_t> sizes = {0,     1,      100,     4000,         65536,
                               65537, 300000, 1 << 20, (3 << 20) + 5};
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < sizes.size(); ++i) {
      auto m = pattern(sizes[i], uint32_t(round * 100 + i));
      ASSERT_EQ(p.client->send(m.data(), m.size()), Status::Ok);
    }
  std::vector<uint8_t> got;
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < sizes.size(); ++i) {
      ASSERT_EQ(p.server->recv(got, 10000), Status::Ok)
          << p.server->lastError();
      EXPECT_EQ(got, pattern(sizes[i], uint32_t(round * 100 + i)));
      EXPECT_TRUE(p.server->lastReceivedSealed());
    }
  auto reply = pattern(200000, 42);
  ASSERT_EQ(p.server->send(reply.data(), reply.size()), Status::Ok);
  ASSERT_EQ(p.client->recv(got, 10000), Status::Ok) << p.client->lastError();
  EXPECT_EQ(got, reply);
}

// What crosses the sockets: the plaintext with a clear connection, none of
// it with a sealed one (messages, writes over the connection and lanes).
void expectOnTheWire(bool sealed) {
  Pair p(sealed);
  ASSERT_TRUE(p.client && p.server);
  std::vector<uint8_t> small = secretText(3000), big = secretText(5 << 20);
  std::vector<uint8_t> target(8 << 20);
  RemoteRegion region;
  ASSERT_TRUE(p.server->exposeForWrite(target.data(), target.size(), &region));
  WireTap::record();
  ASSERT_EQ(p.client->send(small.data(), small.size()), Status::Ok);
  ASSERT_EQ(p.client->send(big.data(), big.size()), Status::Ok);
  ASSERT_EQ(p.client->writeRemote(small.data(), small.size(), region),
            Status::Ok);
  ASSERT_EQ(p.client->writeRemote(big.data(), big.size(), region), Status::Ok);
  std::vector<uint8_t> got;
  ASSERT_EQ(p.server->recv(got, 10000), Status::Ok);
  ASSERT_EQ(p.server->recv(got, 10000), Status::Ok);
  EXPECT_EQ(got, big);
  const char done = 1;
  ASSERT_EQ(p.client->send(&done, 1), Status::Ok);
  ASSERT_EQ(p.server->recv(got, 10000), Status::Ok);
  WireTap::stop();
  EXPECT_TRUE(std::equal(big.begin(), big.end(), target.begin()));
  EXPECT_GT(WireTap::recorded().size(), 2 * big.size());
  EXPECT_EQ(WireTap::recordedContains(marker()), !sealed);
}

TEST(Sealing, TheWireCarriesNoPlaintext) { expectOnTheWire(true); }
TEST(Sealing, AClearConnectionCarriesThePlaintext) { expectOnTheWire(false); }

// One change on the wire to a message from the client ends the connection
// on both sides, named.
void expectRefused(WireTap::Action action, const std::string &serverSays) {
  Pair p;
  ASSERT_TRUE(p.client && p.server);
  auto first = pattern(30000, 1), second = pattern(30000, 2);
  std::vector<uint8_t> got;
  ASSERT_EQ(p.client->send(first.data(), first.size()), Status::Ok);
  ASSERT_EQ(p.server->recv(got, 10000), Status::Ok);
  WireTap::arm(action, 20000);
  ASSERT_EQ(p.client->send(second.data(), second.size()), Status::Ok);
  if (action == WireTap::Action::Drop) // the next one comes early
    ASSERT_EQ(p.client->send(first.data(), first.size()), Status::Ok);
  std::string why = endOf(*p.server);
  WireTap::disarm();
  EXPECT_TRUE(WireTap::fired());
  EXPECT_NE(why.find(serverSays), std::string::npos) << why;
  // The client is told.
  std::string clientWhy = endOf(*p.client);
  EXPECT_NE(clientWhy.find("refused a record"), std::string::npos) << clientWhy;
}

TEST(Sealing, AFlippedByteIsRefused) {
  expectRefused(WireTap::Action::Flip, "changed in transit");
}
TEST(Sealing, AReplayedRecordIsRefused) {
  expectRefused(WireTap::Action::Replay, "replayed");
}
TEST(Sealing, ADroppedRecordIsRefused) {
  expectRefused(WireTap::Action::Drop, "dropped");
}

// A Close nobody sealed cannot end a sealed connection as a goodbye.
TEST(Sealing, ASealedSideTakesNoClearMessage) {
  Pair clear(false);
  ASSERT_TRUE(clear.client && clear.server);
  std::string err;
  SealKeys k{randomKey(1), randomKey(2)};
  ASSERT_TRUE(clear.server->seal(k, false, &err)) << err;
  const char hi[] = "hello";
  ASSERT_EQ(clear.client->send(hi, sizeof hi), Status::Ok);
  std::string why = endOf(*clear.server);
  EXPECT_NE(why.find("clear frame"), std::string::npos) << why;
}

// A client that sealed takes one clear message (a refusal sent before the
// server had keys) and says it was clear; nothing clear after a sealed one.
TEST(Sealing, OneClearMessageBeforeTheFirstSealedOne) {
  Pair p(false);
  ASSERT_TRUE(p.client && p.server);
  std::string err;
  SealKeys c{randomKey(1), randomKey(2)}, s{c.receive, c.send};
  ASSERT_TRUE(p.client->seal(c, true, &err)) << err;
  const char refusal[] = "refused";
  ASSERT_EQ(p.server->send(refusal, sizeof refusal), Status::Ok);
  std::vector<uint8_t> got;
  ASSERT_EQ(p.client->recv(got, 10000), Status::Ok) << p.client->lastError();
  EXPECT_FALSE(p.client->lastReceivedSealed());
  ASSERT_EQ(p.server->send(refusal, sizeof refusal), Status::Ok);
  std::string why = endOf(*p.client);
  EXPECT_NE(why.find("clear frame"), std::string::npos) << why;
}

// A sealed reply that comes before the client installed its keys waits for
// them (the client seals once its answer is out).
TEST(Sealing, SealedFramesBeforeTheKeysWaitForThem) {
  Pair p(false);
  ASSERT_TRUE(p.client && p.server);
  std::string err;
  SealKeys c{randomKey(1), randomKey(2)}, s{c.receive, c.send};
  ASSERT_TRUE(p.server->seal(s, false, &err)) << err;
  auto reply = pattern(150000, 5);
  ASSERT_EQ(p.server->send(reply.data(), reply.size()), Status::Ok);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(p.client->seal(c, true, &err)) << err;
  std::vector<uint8_t> got;
  ASSERT_EQ(p.client->recv(got, 10000), Status::Ok) << p.client->lastError();
  EXPECT_EQ(got, reply);
  EXPECT_TRUE(p.client->lastReceivedSealed());
}

// Writes over the connection land exactly in the exposed memory; a sealed
// side registered nothing with the provider.
TEST(Sealing, WritesLandWhereExposed) {
  Pair p;
  ASSERT_TRUE(p.client && p.server);
  std::vector<uint8_t> target(3 << 20, 0xee);
  RemoteRegion region;
  ASSERT_TRUE(p.server->exposeForWrite(target.data() + 4096, 2 << 20, &region));
  auto a = pattern(70000, 1), b = pattern((1 << 20) + 3, 2);
  ASSERT_EQ(p.client->writeRemote(a.data(), a.size(), region), Status::Ok);
  RemoteRegion later{region.addr + 100000, region.key};
  ASSERT_EQ(p.client->writeRemote(b.data(), b.size(), later), Status::Ok);
  const char done = 1;
  ASSERT_EQ(p.client->send(&done, 1), Status::Ok);
  std::vector<uint8_t> got;
  ASSERT_EQ(p.server->recv(got, 10000), Status::Ok) << p.server->lastError();
  EXPECT_TRUE(std::equal(a.begin(), a.end(), target.begin() + 4096));
  EXPECT_TRUE(std::equal(b.begin(), b.end(), target.begin() + 4096 + 100000));
  EXPECT_EQ(target[4095], 0xee);
  EXPECT_EQ(target[4096 + (2 << 20)], 0xee);
  // A write beside the exposed bytes ends the connection, naming it.
  RemoteRegion beyond{region.addr + (2 << 20) - 10, region.key};
  p.client->writeRemote(a.data(), 100, beyond);
  std::string why = endOf(*p.server);
  EXPECT_NE(why.find("not memory this side exposed"), std::string::npos) << why;
  EXPECT_EQ(target[4096 + (2 << 20)], 0xee);
}

// Lanes sealed: pieces and acknowledgements; a flipped byte on a lane is
// refused by name and reported to the connection.
TEST(SealedLanes, CarryWritesAndRefuseAFlippedByte) {
  auto serverRegions = std::make_shared<LaneRegions>();
  auto clientRegions = std::make_shared<LaneRegions>();
  std::string err, serverErr, clientErr;
  auto offer = LaneOffer::open("127.0.0.1", 2, &err);
  ASSERT_TRUE(offer) << err;
  std::atomic<bool> stop{false};
  auto collected = std::async(std::launch::async, [&] {
    return offer->collect(Clock::now() + std::chrono::seconds(3), stop,
                          serverRegions, &serverErr);
  });
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(offer->port());
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  auto client =
      dialLanes(to, offer->token(), 2, Clock::now() + std::chrono::seconds(3),
                clientRegions, &clientErr);
  auto server = collected.get();
  ASSERT_TRUE(client && server) << serverErr << clientErr;
  SealKeys c{randomKey(1), randomKey(2)}, s{c.receive, c.send};
  std::string refusal;
  std::mutex refusalMu;
  server->seal(s, [&](const std::string &why) {
    std::lock_guard<std::mutex> g(refusalMu);
    refusal = why;
  });
  client->seal(c, nullptr);
  std::vector<uint8_t> target(4 << 20);
  serverRegions->replace({{77, target.data(), target.size()}}, [] {});
  auto data = secretText(4 << 20);
  WireTap::record();
  std::string why;
  ASSERT_TRUE(client->write(
      {{data.data(), data.size(), 77, 0}}, [] { return true; }, &why))
      << why;
  WireTap::stop();
  EXPECT_EQ(target, data);
  EXPECT_FALSE(WireTap::recordedContains(marker()));
  WireTap::arm(WireTap::Action::Flip, 64 * 1024, 1000);
  EXPECT_FALSE(client->write(
      {{data.data(), data.size(), 77, 0}}, [] { return true; }, &why));
  WireTap::disarm();
  EXPECT_TRUE(WireTap::fired());
  // The writer learns of the refusal when its lane closes, which may be
  // before the reader's thread has handed the reason to its callback.
  std::unique_lock<std::mutex> g(refusalMu);
  for (auto end = Clock::now() + std::chrono::seconds(5);
       refusal.empty() && Clock::now() < end;) {
    g.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    g.lock();
  }
  EXPECT_NE(refusal.find("failed authentication"), std::string::npos)
      << refusal;
}

// The same over an address that is not loopback: the test's own network
// namespace (test/unit/transport/off_loopback.sh) gives it one.
TEST(OffLoopback, AConnectionToAnotherAddressIsOffLoopbackAndSeals) {
  const char *host = std::getenv("RC_TEST_OFF_LOOPBACK_HOST");
  if (!host)
    GTEST_SKIP() << "no non-loopback address (run by off_loopback.sh in a "
                    "network namespace of its own)";
  Pair p(false, host);
  ASSERT_TRUE(p.client && p.server);
  EXPECT_TRUE(p.client->offLoopback());
  EXPECT_TRUE(p.server->offLoopback());
  std::string err;
  SealKeys c{randomKey(1), randomKey(2)}, s{c.receive, c.send};
  ASSERT_TRUE(p.server->seal(s, false, &err)) << err;
  ASSERT_TRUE(p.client->seal(c, false, &err)) << err;
  auto big = secretText(3 << 20);
  WireTap::record();
  ASSERT_EQ(p.client->send(big.data(), big.size()), Status::Ok);
  std::vector<uint8_t> got;
  ASSERT_EQ(p.server->recv(got, 10000), Status::Ok) << p.server->lastError();
  WireTap::stop();
  EXPECT_EQ(got, big);
  EXPECT_FALSE(WireTap::recordedContains(marker()));
}

TEST(OffLoopback, LoopbackIsNotOffLoopbackUnlessTold) {
  Pair p(false);
  ASSERT_TRUE(p.client && p.server);
  const char *forced = std::getenv("RC_DEV_TRANSPORT_SEAL_LOOPBACK");
  bool expected = forced && std::string(forced) == "1";
  EXPECT_EQ(p.client->offLoopback(), expected);
  EXPECT_EQ(p.server->offLoopback(), expected);
}

} // namespace
