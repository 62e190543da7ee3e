// Session-level behavior on the host test device: handshake, replay,
// results, and validation of every command (each failure names the command
// index and the operation).
#include "host_session_fixture.h"
#include "rc/transport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace rc::server;
using namespace rc::server::test;

namespace {

class SessionTest : public HostSessionTest {};

TEST_F(SessionTest, HelloListsTheTestDevice) {
  Bytes r = send1(hello({m.hash}));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_NE(hr, nullptr);
  ASSERT_TRUE(hr->ok());
  EXPECT_EQ(hr->session_id(), 7u);
  ASSERT_EQ(hr->devices()->size(), 1u);
  const wire::DeviceInfo *d = hr->devices()->Get(0);
  EXPECT_EQ(d->name()->str(), "remote-clang host test device");
  EXPECT_EQ(d->backend()->str(), "host-test");
  EXPECT_EQ(d->uuid()->size(), 16u);
  ASSERT_GT(d->attributes()->size(), 80u);
  EXPECT_EQ(d->attributes()->Get(1), 1024); // max threads per block
  EXPECT_EQ(d->attributes()->Get(75), 9);   // compute capability major
}

TEST_F(SessionTest, HelloWithUnknownManifestIsRefusedNamingTheHash) {
  Session::Next next;
  std::vector<Bytes> r = send(hello({m.hash, 0x1234}), &next);
  ASSERT_EQ(r.size(), 1u);
  const wire::HelloReply *hr = asHelloReply(r[0]);
  ASSERT_NE(hr, nullptr);
  EXPECT_FALSE(hr->ok());
  EXPECT_NE(hr->error()->str().find("0x0000000000001234"), std::string::npos)
      << hr->error()->str();
  EXPECT_EQ(next, Session::Next::Close);
}

TEST_F(SessionTest, HelloWithWrongProtocolVersionIsRefused) {
  const wire::HelloReply *hr;
  Bytes r = send1(hello({m.hash}, 2));
  ASSERT_NE(hr = asHelloReply(r), nullptr);
  EXPECT_FALSE(hr->ok());
  EXPECT_NE(hr->error()->str().find("(protocol 2)"), std::string::npos)
      << hr->error()->str();
}

TEST_F(SessionTest, BatchBeforeHelloIsAnError) {
  std::string msg =
      expectError(batch(3, {cMalloc(16)}), 0, 3 /*initialization*/, 3);
  EXPECT_NE(msg.find("before Hello"), std::string::npos) << msg;
  open(); // still possible afterwards
}

TEST_F(SessionTest, MalformedMessagesGetErrorReplies) {
  // Before Hello: a failed HelloReply.
  Bytes junk = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  Bytes r = send1(junk);
  ASSERT_NE(asHelloReply(r), nullptr);
  EXPECT_FALSE(asHelloReply(r)->ok());
  open();
  // Random bytes, an empty message, a truncated batch, a wrong identifier.
  std::srand(1234);
  Bytes random(4096);
  for (auto &b : random)
    b = uint8_t(std::rand());
  Bytes good = batch(5, {cMalloc(64), cMemset(0, 0, 0)});
  Bytes truncated(good.begin(), good.begin() + good.size() / 2);
  Bytes wrongId = good;
  std::memcpy(wrongId.data() + 4, "XXXX", 4);
  for (const Bytes &bad : {random, Bytes(), truncated, wrongId}) {
    std::string msg = expectError(bad, 0, 1, 0);
    EXPECT_NE(msg.find("malformed message"), std::string::npos) << msg;
  }
  // Every truncation of a valid batch is rejected, never a crash.
  for (size_t n = 0; n < good.size(); ++n) {
    Bytes cut(good.begin(), good.begin() + n);
    std::vector<Bytes> rs = send(cut);
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_NE(asBatchReply(rs[0]), nullptr);
  }
  // Single flipped bytes: verified or rejected, the session survives.
  for (size_t i = 0; i < good.size(); ++i) {
    Bytes flipped = good;
    flipped[i] ^= 0xFF;
    send(flipped);
  }
  EXPECT_NE(malloc(32), 0u);
}

TEST_F(SessionTest, CopiesMoveBytes) {
  open();
  uint64_t a = malloc(256), b = malloc(256);
  ASSERT_GE(a, kHostDeviceBase);
  Bytes data(100);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint8_t(i * 3);
  Bytes r = send1(batch(2, {cH2D(a + 10, data), cD2D(b, a + 10, 100),
                            cMemset(b + 50, 0xEE, 10), cD2H(b, 100)}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  ASSERT_EQ(br->errors()->size(), 0u);
  const wire::Result *res = resultAt(br, 3);
  ASSERT_NE(res, nullptr);
  ASSERT_EQ(res->payload()->size(), 100u);
  for (size_t i = 0; i < 100; ++i)
    EXPECT_EQ(res->payload()->Get(i), i >= 50 && i < 60 ? 0xEE : data[i]);
}

// The client's side of RMA read-backs as the session sees it: writes land in
// `memory` at the address asked for, or fail when `refuse` is set.
class WriteRecorder : public NullConnection {
public:
  rc::transport::Status
  writeRemote(const void *data, size_t size,
              const rc::transport::RemoteRegion &dst) override {
    if (refuse || dst.key != 77 || dst.addr + size > memory.size())
      return rc::transport::Status::Error;
    std::memcpy(memory.data() + dst.addr, data, size);
    return rc::transport::Status::Ok;
  }
  // The server side of the upload ring: exposed memory is handed out by
  // its address, so the test can write into it like the client's RMA.
  bool exposeForWrite(void *buf, size_t size,
                      rc::transport::RemoteRegion *out) override {
    exposed = static_cast<uint8_t *>(buf);
    exposedSize = size;
    *out = {uint64_t(uintptr_t(buf)), 5};
    return true;
  }
  void withdraw(void *buf, size_t) override {
    if (buf == exposed)
      exposed = nullptr;
  }
  bool sameHost() const override { return local; }
  Bytes memory = Bytes(4096, 0);
  bool refuse = false;
  bool local = false; // an shm client, on the server's machine
  uint8_t *exposed = nullptr;
  size_t exposedSize = 0;
};

TEST_F(SessionTest, RmaReadBackIsWrittenRemotelyOrFallsBackToThePayload) {
  WriteRecorder client;
  session->useConnection(&client);
  open();
  uint64_t a = malloc(256);
  Bytes data(200);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint8_t(i * 5 + 1);
  Bytes r = send1(batch(2, {cH2D(a, data), cD2H(a, 200, 0, true, 1000, 77)}));
  const wire::Result *res = resultAt(asBatchReply(r), 1);
  ASSERT_NE(res, nullptr);
  EXPECT_TRUE(res->written_remotely());
  EXPECT_TRUE(!res->payload() || res->payload()->size() == 0);
  EXPECT_TRUE(
      std::equal(data.begin(), data.end(), client.memory.begin() + 1000));
  EXPECT_EQ(session->metrics()->bytesOutRma.get(), 200u);

  // A write that fails (here: a wrong key) loses nothing: the bytes come in
  // the reply instead.
  r = send1(batch(3, {cD2H(a + 8, 100, 0, true, 0, 78)}));
  res = resultAt(asBatchReply(r), 0);
  ASSERT_NE(res, nullptr);
  EXPECT_FALSE(res->written_remotely());
  ASSERT_TRUE(res->payload() && res->payload()->size() == 100u);
  EXPECT_TRUE(std::equal(data.begin() + 8, data.begin() + 108,
                         res->payload()->begin()));
  EXPECT_EQ(session->metrics()->bytesOutRma.get(), 200u);
}

TEST_F(SessionTest, UploadRingIsExposedCopiedFromCheckedAndWithdrawn) {
  env->settings.uploadRingBytes = 1 << 20;
  WriteRecorder client;
  session->useConnection(&client);
  Bytes r = send1(hello({m.hash}, 1, 4 << 20)); // capped at 1 MiB
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok() && hr->upload_ring());
  EXPECT_EQ(hr->upload_ring()->size(), 1u << 20);
  ASSERT_NE(client.exposed, nullptr);
  EXPECT_EQ(hr->upload_ring()->addr(), uint64_t(uintptr_t(client.exposed)));
  uint64_t a = malloc(256);
  Bytes data(200);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint8_t(i * 3 + 7);
  std::memcpy(client.exposed + 4096, data.data(), data.size()); // "RMA"
  r = send1(batch(2, {cH2DRing(a, 4096, 200, 4296), cD2H(a, 200)}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  ASSERT_EQ(br->errors()->size(), 0u);
  EXPECT_EQ(br->ring_released(), 4296u); // the test device copies at once
  const wire::Result *res = resultAt(br, 1);
  ASSERT_TRUE(res && res->payload());
  EXPECT_TRUE(std::equal(data.begin(), data.end(), res->payload()->begin()));

  // Outside the ring, backwards, or into memory the session does not own.
  std::string msg =
      expectError(batch(3, {cH2DRing(a, (1 << 20) - 8, 16, 5000)}), 0, 1, 3);
  EXPECT_NE(msg.find("not inside the upload ring"), std::string::npos) << msg;
  msg = expectError(batch(4, {cH2DRing(a, 0, 16, 100)}), 0, 1, 4);
  EXPECT_NE(msg.find("behind the previous one"), std::string::npos) << msg;
  expectError(batch(5, {cH2DRing(a + 250, 0, 16, 5000)}), 0, 1, 5);

  session.reset(); // the ring is withdrawn before it is freed
  EXPECT_EQ(client.exposed, nullptr);
}

// A client on this machine (shm) gets its ring as a file it maps: the
// server exposes nothing to RMA, so no client can write into the server
// except through the pages of its own session.
TEST_F(SessionTest, UploadRingOfAClientOnThisMachineIsAFileItMaps) {
  WriteRecorder client;
  client.local = true;
  session->useConnection(&client);
  Bytes r = send1(hello({m.hash}, 1, 1 << 20));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok() && hr->upload_ring());
  const wire::RemoteMemory &ring = *hr->upload_ring();
  EXPECT_EQ(client.exposed, nullptr) << "the ring was exposed to RMA";
  EXPECT_EQ(ring.addr(), 0u);
  EXPECT_EQ(ring.key(), 0u);
  ASSERT_EQ(ring.size(), 1u << 20);
  ASSERT_TRUE(ring.file() && ring.file()->size() > 0);
  std::shared_ptr<uint8_t> mapped =
      mapServerFile(ring.file()->str(), ring.size());
  ASSERT_TRUE(mapped);
  uint64_t a = malloc(256);
  Bytes data(200);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint8_t(i * 11 + 3);
  std::memcpy(mapped.get() + (1 << 20) - 200, data.data(), data.size());
  r = send1(
      batch(2, {cH2DRing(a, (1 << 20) - 200, 200, (1 << 20)), cD2H(a, 200)}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_TRUE(br && br->errors()->size() == 0);
  EXPECT_EQ(br->ring_released(), uint64_t(1 << 20));
  const wire::Result *res = resultAt(br, 1);
  ASSERT_TRUE(res && res->payload());
  EXPECT_TRUE(std::equal(data.begin(), data.end(), res->payload()->begin()));
}

TEST_F(SessionTest, NoUploadRingWithoutATransportOrAWish) {
  WriteRecorder client;
  session->useConnection(&client);
  Bytes r = send1(hello({m.hash})); // the client asks for none
  ASSERT_NE(asHelloReply(r), nullptr);
  EXPECT_EQ(asHelloReply(r)->upload_ring(), nullptr);
  EXPECT_EQ(client.exposed, nullptr);
  session = std::make_unique<Session>(*env, 8); // no transport
  r = send1(hello({m.hash}, 1, 1 << 20));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok());
  EXPECT_EQ(hr->upload_ring(), nullptr);
  uint64_t a = malloc(64);
  std::string msg = expectError(batch(2, {cH2DRing(a, 0, 16, 16)}), 0, 1, 2);
  EXPECT_NE(msg.find("no upload ring"), std::string::npos) << msg;
}

TEST_F(SessionTest, NoReplyUnlessWantedOrFailed) {
  open();
  EXPECT_EQ(send(batch(2, {cMalloc(16)}, false)).size(), 0u);
  // A failure is answered even though no reply was wanted.
  std::string msg = expectError(batch(3, {cFree(0x42)}, false), 0, 1, 3);
  EXPECT_NE(msg.find("cudaFree"), std::string::npos) << msg;
}

TEST_F(SessionTest, LaunchIsValidatedAndRecorded) {
  open();
  uint64_t buf = malloc(1024);
  Bytes r =
      send1(batch(2, {cLaunch(m.scaleId, scaleArgs(buf + 512, 77), 0, {4, 2, 1},
                              {128, 1, 1}, 256),
                      cLaunch(m.consumeId, consumeArgs(0xFFFFFFFFFFFF, buf)),
                      cLaunch(m.scaleId, scaleArgs(0, 1))})); // null is allowed
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  EXPECT_EQ(br->errors()->size(), 0u);
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].kernelId, m.scaleId);
  EXPECT_EQ(launches[0].config.grid[0], 4u);
  EXPECT_EQ(launches[0].config.grid[1], 2u);
  EXPECT_EQ(launches[0].config.block[0], 128u);
  EXPECT_EQ(launches[0].config.sharedMem, 256u);
  EXPECT_EQ(launches[0].args, scaleArgs(buf + 512, 77));
  EXPECT_EQ(launches[1].kernelId, m.consumeId);
}

TEST_F(SessionTest, UnknownKernelIdFailsAtItsIndex) {
  open();
  uint64_t buf = malloc(64);
  std::string msg = expectError(
      batch(4, {cMemset(buf, 0, 64), cLaunch(0xDEAD, scaleArgs(buf, 1))}), 1,
      98, 4);
  EXPECT_NE(msg.find("unknown kernel id 0x000000000000dead"), std::string::npos)
      << msg;
}

TEST_F(SessionTest, WrongArgsSizeNamesTheKernelAndLaunchSite) {
  open();
  Bytes shortArgs(12, 0);
  std::string msg =
      expectError(batch(5, {cLaunch(m.scaleId, shortArgs)}), 0, 1, 5);
  EXPECT_NE(msg.find("scale(float*, int)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.cu:42"), std::string::npos) << msg;
  EXPECT_NE(msg.find("12 bytes"), std::string::npos) << msg;
}

TEST_F(SessionTest, PointerParamOutsideAllocationsIsRejected) {
  open();
  uint64_t buf = malloc(64);
  std::string msg =
      expectError(batch(6, {cLaunch(m.scaleId, scaleArgs(buf, 1)),
                            cLaunch(m.scaleId, scaleArgs(buf + 65, 1))}),
                  1, 1, 6);
  EXPECT_NE(msg.find("parameter 0 (p)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not inside any allocation"), std::string::npos) << msg;
  // One past the end is a valid pointer value.
  Bytes r = send1(batch(7, {cLaunch(m.scaleId, scaleArgs(buf + 64, 1))}));
  EXPECT_EQ(asBatchReply(r)->errors()->size(), 0u);
}

TEST_F(SessionTest, PointerInsideAggregateIsChecked) {
  open();
  uint64_t buf = malloc(64);
  // The first 8 bytes are a plain value: anything goes there.
  Bytes ok = send1(batch(8, {cLaunch(m.consumeId, consumeArgs(0x1234, buf))}));
  EXPECT_EQ(asBatchReply(ok)->errors()->size(), 0u);
  std::string msg = expectError(
      batch(9, {cLaunch(m.consumeId, consumeArgs(buf, 0x1234))}), 0, 1, 9);
  EXPECT_NE(msg.find("at byte 8"), std::string::npos) << msg;
  EXPECT_NE(msg.find("consume(Pair)"), std::string::npos) << msg;
}

TEST_F(SessionTest, LaunchConfigurationLimits) {
  open();
  expectError(batch(10, {cLaunch(m.scaleId, scaleArgs(0, 1), 0, {1, 1, 1},
                                 {1024, 2, 1})}),
              0, 9, 10);
  expectError(batch(11, {cLaunch(m.scaleId, scaleArgs(0, 1), 0, {0, 1, 1})}), 0,
              9, 11);
  expectError(batch(12, {cLaunch(m.scaleId, scaleArgs(0, 1), 0, {1, 1})}), 0, 9,
              12);
}

TEST_F(SessionTest, CopyBeyondAnAllocationIsRejected) {
  open();
  uint64_t a = malloc(64);
  std::string msg = expectError(batch(13, {cD2H(a + 32, 33)}), 0, 1, 13);
  EXPECT_NE(msg.find("cudaMemcpyAsync (device to host)"), std::string::npos)
      << msg;
  expectError(batch(14, {cH2D(a + 60, Bytes(8, 1))}), 0, 1, 14);
  expectError(batch(15, {cMemset(a, 0, 65)}), 0, 1, 15);
  expectError(batch(16, {cD2D(a, a + 1, 64)}), 0, 1, 16);
  // Overflowing ranges too.
  expectError(batch(17, {cD2H(a + 8, ~uint64_t(0) - 4)}), 0, 1, 17);
}

TEST_F(SessionTest, UnknownStreamAndEventHandles) {
  open();
  uint64_t a = malloc(64);
  std::string msg = expectError(batch(18, {cMemset(a, 0, 8, 99)}), 0, 400, 18);
  EXPECT_NE(msg.find("unknown stream 0x63"), std::string::npos) << msg;
  msg = expectError(batch(19, {cEventRecord(5)}), 0, 400, 19);
  EXPECT_NE(msg.find("unknown event 0x5"), std::string::npos) << msg;
  expectError(batch(20, {cStreamDestroy(99)}), 0, 400, 20);
  // Created handles work; destroyed ones are gone again.
  Bytes r =
      send1(batch(21, {cStreamCreate(99), cMemset(a, 0, 8, 99), cStreamSync(99),
                       cStreamQuery(99), cStreamDestroy(99)}));
  ASSERT_EQ(asBatchReply(r)->errors()->size(), 0u);
  EXPECT_EQ(resultAt(asBatchReply(r), 3)->code(), 0);
  expectError(batch(22, {cStreamSync(99)}), 0, 400, 22);
  expectError(batch(23, {cStreamCreate(1)}), 0, 1, 23); // reserved
}

TEST_F(SessionTest, EventsTimeAndQuery) {
  open();
  Bytes r = send1(batch(24, {cEventCreate(1), cEventCreate(2), cEventRecord(1),
                             cEventRecord(2), cEventSync(2), cEventQuery(2),
                             cStreamWaitEvent(0, 2), cEventElapsed(1, 2)}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_EQ(br->errors()->size(), 0u);
  EXPECT_EQ(resultAt(br, 5)->code(), 0);
  EXPECT_GE(resultAt(br, 7)->value(), 0.0);
  // Timing a never-recorded or timing-disabled event is an error.
  expectError(batch(25, {cEventCreate(3), cEventElapsed(1, 3)}), 1, 400, 25);
  expectError(batch(26, {cEventCreate(4, 2 /*disable timing*/), cEventRecord(4),
                         cEventElapsed(1, 4)}),
              2, 400, 26);
}

TEST_F(SessionTest, SymbolsReadWriteAndAddress) {
  open();
  Bytes data = {1, 2, 3, 4, 5, 6, 7, 8};
  Bytes r = send1(
      batch(27, {cSymbolWrite(m.tableId, 8, data),
                 cSymbolRead(m.tableId, 6, 12), cSymbolAddress(m.tableId)}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_EQ(br->errors()->size(), 0u);
  const auto *payload = resultAt(br, 1)->payload();
  ASSERT_EQ(payload->size(), 12u);
  Bytes expect = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0};
  EXPECT_EQ(Bytes(payload->begin(), payload->end()), expect);
  uint64_t addr = resultAt(br, 2)->addr();
  EXPECT_EQ(resultAt(br, 2)->value(), 64.0);
  // A kernel may take the variable's address.
  Bytes ok = send1(batch(28, {cLaunch(m.scaleId, scaleArgs(addr + 4, 1))}));
  EXPECT_EQ(asBatchReply(ok)->errors()->size(), 0u);
  expectError(batch(29, {cSymbolRead(m.tableId, 60, 8)}), 0, 1, 29);
  expectError(batch(30, {cSymbolAddress(0x99)}), 0, 13, 30);
}

TEST_F(SessionTest, FreeAndMallocRules) {
  open();
  uint64_t a = malloc(64);
  uint64_t before = backend->bytesInUse();
  EXPECT_GE(before, 64u);
  expectError(batch(31, {cFree(a + 8)}), 0, 1, 31); // not a base address
  Bytes r = send1(batch(32, {cFree(a), cFree(0)}));
  EXPECT_EQ(asBatchReply(r)->errors()->size(), 0u);
  EXPECT_EQ(backend->bytesInUse(), before - 64);
  expectError(batch(33, {cFree(a)}), 0, 1, 33);   // double free
  expectError(batch(34, {cD2H(a, 8)}), 0, 1, 34); // use after free
  expectError(batch(35, {cMalloc(1ULL << 50)}), 0, 2, 35);
  expectError(batch(36, {cSetDevice(1)}), 0, 101, 36);
}

TEST_F(SessionTest, BatchStopsAtTheFirstFailure) {
  open();
  uint64_t a = malloc(16);
  expectError(
      batch(37, {cMemset(a, 0x11, 16), cFree(0x5), cMemset(a, 0x22, 16)}), 1, 1,
      37);
  Bytes r = send1(batch(38, {cD2H(a, 16)}));
  EXPECT_EQ(resultAt(asBatchReply(r), 0)->payload()->Get(0), 0x11);
}

TEST_F(SessionTest, GoodbyeClosesTheSession) {
  open();
  Session::Next next;
  send(batch(39, {cGoodbye()}, false), &next);
  EXPECT_EQ(next, Session::Next::Close);
  EXPECT_EQ(session->closeReason(), "goodbye");
}

TEST_F(SessionTest, DestroyingTheSessionFreesItsMemory) {
  open();
  malloc(1000);
  malloc(2000);
  send1(batch(40, {cSymbolAddress(m.tableId)}));
  EXPECT_GE(backend->bytesInUse(), 3000u);
  session.reset();
  EXPECT_EQ(backend->bytesInUse(), 0u);
}

// ---- several devices ----------------------------------------------------

class MultiDeviceSessionTest : public SessionTest {
protected:
  int testDevices() const override { return 2; }
};

TEST_F(MultiDeviceSessionTest, HelloListsEveryDeviceAndItsPeers) {
  Bytes r = send1(hello({m.hash}));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_NE(hr, nullptr);
  ASSERT_TRUE(hr->ok());
  ASSERT_EQ(hr->devices()->size(), 2u);
  for (uint32_t d = 0; d < 2; ++d) {
    const auto *peers = hr->devices()->Get(d)->can_access_peer();
    ASSERT_NE(peers, nullptr);
    ASSERT_EQ(peers->size(), 2u);
    EXPECT_EQ(peers->Get(d), 0) << "device " << d << " is no peer of itself";
    EXPECT_EQ(peers->Get(1 - d), 1);
  }
}

TEST_F(MultiDeviceSessionTest, CommandsRunOnTheDeviceTheyBelongTo) {
  open();
  uint64_t a = malloc(64); // device 0
  Bytes r =
      send1(batch(2, {cSetDevice(1), cMalloc(64), cStreamCreate(0x40)}, true));
  const wire::Result *res = resultAt(asBatchReply(r), 1);
  ASSERT_NE(res, nullptr);
  uint64_t b = res->addr();
  r = send1(batch(3,
                  {cLaunch(m.scaleId, scaleArgs(b, 4)), // device 1
                   cSetDevice(0), cLaunch(m.scaleId, scaleArgs(a, 4)),
                   cLaunch(m.scaleId, scaleArgs(b, 4), 0x40), // its stream's
                   cDeviceSync()},
                  true));
  EXPECT_EQ(asBatchReply(r)->errors()->size(), 0u);
  auto launches = backend->launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].device, 1);
  EXPECT_EQ(launches[1].device, 0);
  EXPECT_EQ(launches[2].device, 1);
  expectError(batch(4, {cSetDevice(2)}), 0, 101, 4);
}

TEST_F(MultiDeviceSessionTest, CopiesCrossDevices) {
  open();
  uint64_t a = malloc(16);
  Bytes r = send1(batch(2, {cSetDevice(1), cMalloc(16)}, true));
  uint64_t b = resultAt(asBatchReply(r), 1)->addr();
  Bytes data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  // From device 0 to device 1's memory: a peer copy on device 0's stream.
  r = send1(batch(3,
                  {cSetDevice(0), cH2D(a, data), cD2D(b, a, 16), cSetDevice(1),
                   cD2H(b, 16)},
                  true));
  EXPECT_EQ(asBatchReply(r)->errors()->size(), 0u);
  const wire::Result *out = resultAt(asBatchReply(r), 4);
  ASSERT_NE(out, nullptr);
  ASSERT_NE(out->payload(), nullptr);
  EXPECT_EQ(Bytes(out->payload()->begin(), out->payload()->end()), data);
}

TEST_F(MultiDeviceSessionTest, PeerAccessNeedsAnotherDevice) {
  open();
  expectError(batch(2, {cPeerAccess(0, true)}), 0, 101, 2);
  expectError(batch(3, {cPeerAccess(5, true)}), 0, 101, 3);
  Bytes r = send1(batch(4, {cPeerAccess(1, true), cDeviceSync()}, true));
  EXPECT_EQ(asBatchReply(r)->errors()->size(), 0u);
}

} // namespace
