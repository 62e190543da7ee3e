// Messages that pass the flatbuffers Verifier yet cannot be read field by
// field: a union type naming a table the message does not carry (a body, a
// command, a graph node), a vector of 8-byte hashes aligned to 4 bytes only,
// a buffer that does not start 8-byte aligned. Each used to be read as is (a
// null dereference killed the server before authentication); each now gets
// an error reply naming the missing part, runs nothing, and leaves the
// session usable (wire::openMessage).
#include "graph_test_util.h"
#include "host_session_fixture.h"
#include "rc/wire_message.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace rc::server;
using namespace rc::server::test;

namespace {

namespace fb = flatbuffers;

Bytes finished(fb::FlatBufferBuilder &fbb, wire::Body type,
               fb::Offset<void> body) {
  fbb.Finish(wire::CreateMessage(fbb, type, body), "RCW1");
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// A message whose body type is `type` but which carries no body table.
Bytes bodiless(wire::Body type) {
  fb::FlatBufferBuilder fbb;
  return finished(fbb, type, 0);
}

// A command entry naming `type` without the command's table.
Cmd tableless(wire::Command type) {
  return [type](fb::FlatBufferBuilder &fbb) {
    return wire::CreateCommandEntry(fbb, type, 0);
  };
}

bool verifies(const Bytes &b) {
  fb::Verifier v(b.data(), b.size());
  return wire::VerifyMessageBuffer(v);
}

// A Hello whose manifest_hashes vector holds `hash` but starts at 4 mod 8:
// one uint64 written as two uint32 (which the builder aligns to 4 only)
// behind one 4-byte pad or none, whichever lands it misaligned (the 8-byte
// upload_ring_bytes keeps the whole buffer a multiple of 8).
Bytes helloWithMisalignedHashes(uint64_t hash) {
  for (int pad = 0; pad < 2; ++pad) {
    fb::FlatBufferBuilder fbb;
    uint32_t halves[2];
    std::memcpy(halves, &hash, 8);
    if (pad)
      fbb.PushElement<uint32_t>(0);
    fbb.StartVector(2, sizeof(uint32_t));
    fbb.PushElement(halves[1]);
    fbb.PushElement(halves[0]);
    fb::Offset<fb::Vector<uint64_t>> hashes(fbb.EndVector(1));
    auto name = fbb.CreateString("misaligned");
    wire::HelloBuilder h(fbb);
    h.add_protocol_version(wire::kProtocolVersion);
    h.add_upload_ring_bytes(1);
    h.add_manifest_hashes(hashes);
    h.add_client_name(name);
    Bytes msg = finished(fbb, wire::Body::Hello, h.Finish().Union());
    const wire::Hello *hello = wire::GetMessage(msg.data())->body_as_Hello();
    if (verifies(msg) &&
        reinterpret_cast<uintptr_t>(hello->manifest_hashes()->data()) % 8 == 4)
      return msg;
  }
  return {};
}

class IncompleteMessageTest : public HostSessionTest {
protected:
  // The only reply before the handshake refuses it, naming `expected`.
  void expectHelloRefused(const std::vector<Bytes> &replies,
                          const std::string &expected) {
    ASSERT_EQ(replies.size(), 1u);
    const wire::HelloReply *hr = asHelloReply(replies[0]);
    ASSERT_NE(hr, nullptr);
    ASSERT_FALSE(hr->ok());
    EXPECT_NE(hr->error()->str().find(expected), std::string::npos)
        << hr->error()->str();
  }
  // A batch that must be refused as a whole: the error names `expected`,
  // and nothing in the batch ran (no memory was taken).
  void expectRefused(const Bytes &msg, const std::string &expected) {
    ASSERT_TRUE(verifies(msg)) << "the flatbuffers Verifier must accept it";
    uint64_t before = backend->bytesInUse();
    std::string error = expectError(msg, 0, 1 /*invalid value*/, 0);
    EXPECT_NE(error.find(expected), std::string::npos) << error;
    EXPECT_EQ(backend->bytesInUse(), before);
    EXPECT_NE(malloc(64), 0u) << "the session must stay usable";
  }
};

TEST_F(IncompleteMessageTest, HelloWithoutItsBodyIsRefusedBeforeTheHandshake) {
  Bytes msg = bodiless(wire::Body::Hello);
  ASSERT_TRUE(verifies(msg));
  expectHelloRefused(send(msg), "names a Hello body but carries none");
  open();
}

TEST_F(IncompleteMessageTest, BatchWithoutItsBodyIsRefused) {
  expectHelloRefused(send(bodiless(wire::Body::Batch)),
                     "names a Batch body but carries none");
  open();
  expectRefused(bodiless(wire::Body::Batch),
                "names a Batch body but carries none");
}

TEST_F(IncompleteMessageTest, MessageWithoutAnyBodyIsRefused) {
  open();
  expectRefused(bodiless(wire::Body::NONE), "it has no body");
}

TEST_F(IncompleteMessageTest, CommandWithoutItsTableIsRefusedAndNothingRuns) {
  open();
  // Every command type that reads its table, after a Malloc that must not
  // run either.
  for (int t = 1; t <= int(wire::Command::MAX); ++t) {
    auto type = wire::Command(t);
    expectRefused(batch(4, {cMalloc(4096), tableless(type)}),
                  std::string("batch 4 command 1 names a ") +
                      wire::EnumNameCommand(type) + " but carries none");
  }
}

TEST_F(IncompleteMessageTest, GraphNodeWithoutItsTableIsRefused) {
  open();
  uint64_t a = malloc(64);
  expectRefused(
      batch(5, {cGraphInstantiate(
                   1, {cMemset(a, 1, 8), tableless(wire::Command::Launch)})}),
      "batch 5 command 0 (GraphInstantiate) node 1 names a Launch "
      "but carries none");
  ASSERT_EQ(
      asBatchReply(send1(batch(6, {cGraphInstantiate(2, {cMemset(a, 1, 8)})})))
          ->errors()
          ->size(),
      0u);
  expectRefused(
      batch(7, {cGraphUpdate(2, {0}, {tableless(wire::Command::Memset)})}),
      "batch 7 command 0 (GraphExecUpdate) node 0 names a Memset but carries "
      "none");
}

TEST_F(IncompleteMessageTest, MisalignedManifestHashesAreRefused) {
  Bytes msg = helloWithMisalignedHashes(m.hash);
  ASSERT_FALSE(msg.empty()) << "could not build a misaligned vector";
  expectHelloRefused(send(msg), "Hello.manifest_hashes is not 8-byte aligned");
  open();
}

TEST_F(IncompleteMessageTest, MisalignedBufferIsRefused) {
  Bytes good = hello({m.hash});
  Bytes shifted(good.size() + 4);
  std::memcpy(shifted.data() + 4, good.data(), good.size());
  std::vector<Bytes> replies;
  session->handle(shifted.data() + 4, good.size(), replies);
  expectHelloRefused(replies, "does not start 8-byte aligned");
  open();
}

} // namespace
