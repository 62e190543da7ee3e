// Pinned host memory shared with a client on the same machine (HostShare,
// gpu-server/src/executor/shared_host.h), at the session level on the host test
// device: the region's file maps the same pages the server reads back
// into, and every way a client can name a region wrongly is an error that
// names it, leaves the session usable, and never reaches another session's
// region.
#include "host_session_fixture.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace rc::server;
using namespace rc::server::test;

namespace {

// The session's connection, as far as these tests need one: it says the
// client is on this machine (an shm connection does).
class SameHostConnection : public NullConnection {
public:
  explicit SameHostConnection(bool same) : same_(same) {}
  bool sameHost() const override { return same_; }

private:
  bool same_;
};

class SharedHostSessionTest : public HostSessionTest {
protected:
  void SetUp() override {
    HostSessionTest::SetUp();
    session->useConnection(&local);
    Bytes r = send1(hello({m.hash}));
    const wire::HelloReply *hr = asHelloReply(r);
    ASSERT_TRUE(hr && hr->ok());
  }
  // Shares `size` bytes and maps them as the client would; the region id.
  uint64_t share(uint64_t size) {
    Bytes r = send1(batch(2, {cHostShare(size)}));
    const wire::Result *res = resultAt(asBatchReply(r), 0);
    if (!res || !res->payload()) {
      ADD_FAILURE() << "HostShare returned no name";
      return 0;
    }
    std::string name(res->payload()->begin(), res->payload()->end());
    mapping = mapServerFile(name, size);
    view = mapping.get();
    return res->addr();
  }
  SameHostConnection local{true};
  std::shared_ptr<uint8_t> mapping;
  uint8_t *view = nullptr;
};

TEST_F(SharedHostSessionTest, ReadBacksLandInTheSharedPagesWithoutAPayload) {
  uint64_t region = share(64 << 10);
  ASSERT_NE(region, 0u);
  uint64_t a = malloc(4096);
  Bytes data(300);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint8_t(i * 3 + 7);
  Bytes r =
      send1(batch(3, {cH2D(a, data), cD2HShared(a + 50, 200, region, 1000)}));
  const wire::Result *res = resultAt(asBatchReply(r), 1);
  ASSERT_NE(res, nullptr);
  EXPECT_TRUE(res->written_remotely());
  EXPECT_TRUE(!res->payload() || res->payload()->size() == 0);
  EXPECT_EQ(std::memcmp(view + 1000, data.data() + 50, 200), 0);
  EXPECT_EQ(view[999], 0) << "bytes before the destination were written";
  EXPECT_EQ(view[1200], 0) << "bytes after the destination were written";
  EXPECT_EQ(session->metrics()->bytesOutShared.get(), 200u);
  EXPECT_EQ(session->metrics()->bytesOutRma.get(), 0u);
}

// The other direction: an upload names its bytes in the shared pages
// instead of carrying them, and the server reads them there.
TEST_F(SharedHostSessionTest, UploadsReadTheSharedPagesWithoutData) {
  uint64_t region = share(64 << 10);
  ASSERT_NE(region, 0u);
  uint64_t a = malloc(4096);
  for (size_t i = 0; i < 300; ++i)
    view[2000 + i] = uint8_t(i * 5 + 1);
  Bytes r =
      send1(batch(3, {cH2DShared(a + 8, 300, region, 2000), cD2H(a + 8, 300)}));
  const wire::Result *res = resultAt(asBatchReply(r), 1);
  ASSERT_TRUE(res && res->payload() && res->payload()->size() == 300);
  EXPECT_EQ(std::memcmp(res->payload()->data(), view + 2000, 300), 0);
  EXPECT_EQ(session->metrics()->bytesInShared.get(), 300u);
  EXPECT_NE(expectError(batch(4, {cH2DShared(a, 16, region + 5, 0)}), 0, 1, 4)
                .find("no shared host region " + std::to_string(region + 5)),
            std::string::npos);
  EXPECT_NE(expectError(batch(5, {cH2DShared(a, 100, region, (64 << 10) - 50)}),
                        0, 1, 5)
                .find("not inside shared host region"),
            std::string::npos);
  // A region is unshared only after the uploads from it.
  Bytes doneBytes =
      send1(batch(6, {cH2DShared(a, 64, region, 0), cHostUnshare(region)}));
  const wire::BatchReply *done = asBatchReply(doneBytes);
  ASSERT_NE(done, nullptr);
  EXPECT_TRUE(!done->errors() || done->errors()->size() == 0);
}

TEST_F(SharedHostSessionTest, WrongRegionsAndRangesAreErrorsThatNameThem) {
  uint64_t region = share(4096);
  ASSERT_NE(region, 0u);
  uint64_t a = malloc(8192);
  EXPECT_NE(expectError(batch(4, {cD2HShared(a, 16, region + 5, 0)}), 0, 1, 4)
                .find("no shared host region " + std::to_string(region + 5)),
            std::string::npos);
  EXPECT_NE(expectError(batch(5, {cD2HShared(a, 100, region, 4000)}), 0, 1, 5)
                .find("not inside shared host region"),
            std::string::npos);
  EXPECT_NE(expectError(batch(6, {cD2HShared(a, 8192, region, 0)}), 0, 1, 6)
                .find("not inside shared host region"),
            std::string::npos);
  EXPECT_NE(expectError(batch(7, {cHostUnshare(region + 1)}), 0, 1, 7)
                .find("no shared host region"),
            std::string::npos);
  EXPECT_NE(expectError(batch(8, {cHostShare(0)}), 0, 1, 8).find("0 bytes"),
            std::string::npos);
  EXPECT_NE(expectError(batch(9, {cHostShare(uint64_t(1) << 40)}), 0, 2, 9)
                .find("limit"),
            std::string::npos);
  // Nothing of that broke the session or the region.
  Bytes r = send1(batch(10, {cD2HShared(a, 16, region, 0)}));
  const wire::Result *res = resultAt(asBatchReply(r), 0);
  ASSERT_NE(res, nullptr);
  EXPECT_TRUE(res->written_remotely());
}

TEST_F(SharedHostSessionTest, AnUnsharedRegionIsGone) {
  uint64_t region = share(4096);
  ASSERT_NE(region, 0u);
  uint64_t a = malloc(64);
  Bytes r = send1(batch(3, {cHostUnshare(region)}, /*replyWanted=*/true));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  EXPECT_TRUE(!br->errors() || br->errors()->size() == 0);
  EXPECT_NE(expectError(batch(4, {cD2HShared(a, 16, region, 0)}), 0, 1, 4)
                .find("no shared host region"),
            std::string::npos);
}

TEST_F(SharedHostSessionTest, AnotherSessionCannotNameThisSessionsRegion) {
  uint64_t region = share(4096);
  ASSERT_NE(region, 0u);
  Session other(*env, 8);
  other.useConnection(&local);
  auto sendOther = [&](const Bytes &msg) {
    std::vector<Bytes> replies;
    other.handle(msg.data(), msg.size(), replies);
    EXPECT_EQ(replies.size(), 1u);
    return replies.empty() ? Bytes() : replies[0];
  };
  ASSERT_TRUE(asHelloReply(sendOther(hello({m.hash})))->ok());
  Bytes allocated = sendOther(batch(1, {cMalloc(64)}));
  const wire::Result *res = resultAt(asBatchReply(allocated), 0);
  ASSERT_NE(res, nullptr);
  Bytes r = sendOther(batch(2, {cD2HShared(res->addr(), 16, region, 0)}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_TRUE(br && br->errors() && br->errors()->size() == 1);
  EXPECT_NE(
      br->errors()->Get(0)->message()->str().find("no shared host region"),
      std::string::npos);
}

TEST_F(SharedHostSessionTest, AClientOnAnotherMachineIsRefused) {
  SameHostConnection remote(false);
  Session other(*env, 9);
  other.useConnection(&remote);
  std::vector<Bytes> replies;
  Bytes msg = hello({m.hash});
  other.handle(msg.data(), msg.size(), replies);
  ASSERT_EQ(replies.size(), 1u);
  ASSERT_TRUE(asHelloReply(replies[0])->ok());
  replies.clear();
  msg = batch(1, {cHostShare(4096)});
  other.handle(msg.data(), msg.size(), replies);
  ASSERT_EQ(replies.size(), 1u);
  const wire::BatchReply *br = asBatchReply(replies[0]);
  ASSERT_TRUE(br && br->errors() && br->errors()->size() == 1);
  EXPECT_NE(br->errors()->Get(0)->message()->str().find(
                "only with a client on the server's machine"),
            std::string::npos);
}

} // namespace
