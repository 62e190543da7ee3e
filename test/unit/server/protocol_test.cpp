// The wire schema as rc-server reads it: messages built with
// FlatBufferBuilder verify and decode to what was written.
#include "server_test_util.h"

#include <gtest/gtest.h>

using namespace rc;
using namespace rc::server::test;

TEST(Protocol, BatchRoundTrip) {
  Bytes args = scaleArgs(0x600000001000, 5);
  Bytes msg =
      batch(42,
            {cMalloc(256), cLaunch(0xABCD, args, 9, {2, 3, 4}, {32, 2, 1}, 128),
             cGoodbye()},
            true);
  flatbuffers::Verifier v(msg.data(), msg.size());
  ASSERT_TRUE(wire::VerifyMessageBuffer(v));
  ASSERT_TRUE(flatbuffers::BufferHasIdentifier(msg.data(), "RCW1"));
  const wire::Batch *b = wire::GetMessage(msg.data())->body_as_Batch();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->seq(), 42u);
  EXPECT_TRUE(b->reply_wanted());
  ASSERT_EQ(b->commands()->size(), 3u);
  EXPECT_EQ(b->commands()->Get(0)->cmd_as_Malloc()->size(), 256u);
  const wire::Launch *l = b->commands()->Get(1)->cmd_as_Launch();
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->kernel_id(), 0xABCDu);
  EXPECT_EQ(l->grid()->Get(2), 4u);
  EXPECT_EQ(l->block()->Get(1), 2u);
  EXPECT_EQ(l->shared_mem(), 128u);
  EXPECT_EQ(l->stream(), 9u);
  EXPECT_EQ(Bytes(l->args()->begin(), l->args()->end()), args);
  EXPECT_EQ(b->commands()->Get(2)->cmd_type(), wire::Command::Goodbye);
}

TEST(Protocol, HelloRoundTrip) {
  Bytes msg = authHello({1, 2, 3}, "tenant-1", Bytes(32, 9));
  flatbuffers::Verifier v(msg.data(), msg.size());
  ASSERT_TRUE(wire::VerifyMessageBuffer(v));
  const wire::Hello *h = wire::GetMessage(msg.data())->body_as_Hello();
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->protocol_version(), 1u);
  EXPECT_EQ(h->manifest_hashes()->size(), 3u);
  EXPECT_EQ(h->auth_key_id()->str(), "tenant-1");
  EXPECT_EQ(
      Bytes(h->auth_client_nonce()->begin(), h->auth_client_nonce()->end()),
      Bytes(32, 9));
}

TEST(Protocol, TruncatedBufferFailsVerification) {
  Bytes msg = batch(1, {cH2D(0x1000, Bytes(300, 7))});
  Bytes cut(msg.begin(), msg.begin() + msg.size() - 40);
  flatbuffers::Verifier v(cut.data(), cut.size());
  EXPECT_FALSE(wire::VerifyMessageBuffer(v));
}
