// A client of another remote-clang release (docs/design/version-skew.md):
// its Hello carries another protocol revision, release or manifest
// format; rc-server serves what the policy serves and refuses the rest
// with one sentence naming both releases and what to upgrade, never with
// a malformed-message error.
#include "host_session_fixture.h"
#include "rc/version.h"
#include "rc/wire_message.h"
#include "session/version_skew.h"

#include <gtest/gtest.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

namespace fb = flatbuffers;

class VersionSkewTest : public HostSessionTest {
protected:
  // A Hello of a client of `release`, speaking `protocol` with manifests
  // of `format`; `futureField`: also a field this schema does not have
  // (slot 40), as a later revision of Hello would carry.
  Bytes helloOf(const char *release, uint32_t protocol, uint32_t format,
                bool futureField = false) {
    fb::FlatBufferBuilder fbb;
    std::vector<uint64_t> hashes{m.hash};
    auto hashVec = fbb.CreateVector(hashes);
    auto name = fbb.CreateString("skew-test");
    auto version = fbb.CreateString(release);
    auto start = fbb.StartTable();
    fbb.AddElement<uint32_t>(wire::Hello::VT_PROTOCOL_VERSION, protocol, 0);
    fbb.AddOffset(wire::Hello::VT_MANIFEST_HASHES, hashVec);
    fbb.AddOffset(wire::Hello::VT_CLIENT_NAME, name);
    fbb.AddOffset(wire::Hello::VT_CLIENT_VERSION, version);
    fbb.AddElement<uint32_t>(wire::Hello::VT_MANIFEST_FORMAT, format, 0);
    if (futureField)
      fbb.AddElement<uint64_t>(fb::FieldIndexToOffset(40), 0xfeedu, 0);
    auto hello = fb::Offset<wire::Hello>(fbb.EndTable(start));
    wire::FinishMessageBuffer(
        fbb, wire::CreateMessage(fbb, wire::Body::Hello, hello.Union()));
    return Bytes(fbb.GetBufferPointer(),
                 fbb.GetBufferPointer() + fbb.GetSize());
  }

  std::string refusal(const Bytes &hello) {
    Bytes r = send1(hello);
    const wire::HelloReply *hr = asHelloReply(r);
    EXPECT_NE(hr, nullptr);
    if (!hr)
      return "";
    EXPECT_FALSE(hr->ok());
    // Every reply says who the server is, refusals included.
    EXPECT_EQ(hr->server_version() ? hr->server_version()->str() : "",
              rc::kReleaseVersion);
    EXPECT_EQ(hr->protocol_version(), rc::wire::kProtocolVersion);
    return hr->error() ? hr->error()->str() : "";
  }
};

TEST_F(VersionSkewTest, ANewerClientIsToldToUpgradeTheServer) {
  std::string why =
      refusal(helloOf("9.1.0", rc::wire::kProtocolVersion + 1, 1, true));
  EXPECT_NE(why.find("the client is newer than rc-server"), std::string::npos)
      << why;
  EXPECT_NE(why.find("remote-clang 9.1.0 (protocol " +
                     std::to_string(rc::wire::kProtocolVersion + 1)),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(std::string("remote-clang ") + rc::kReleaseVersion +
                     " (protocol " +
                     std::to_string(rc::wire::kProtocolVersion)),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("upgrade rc-server"), std::string::npos) << why;
  EXPECT_EQ(why.find("malformed"), std::string::npos) << why;
}

TEST_F(VersionSkewTest, AnOlderClientIsToldToRebuildWithTheServersRelease) {
  std::string why =
      refusal(helloOf("0.0.1", rc::wire::kProtocolVersion - 1, 1));
  EXPECT_NE(why.find("the client is older than rc-server"), std::string::npos)
      << why;
  EXPECT_NE(why.find("remote-clang 0.0.1 (protocol 0"), std::string::npos)
      << why;
  EXPECT_NE(why.find(std::string("rebuild the program with remote-clang ") +
                     rc::kReleaseVersion),
            std::string::npos)
      << why;
}

TEST_F(VersionSkewTest, ANewerManifestFormatIsRefusedNamingIt) {
  std::string why = refusal(
      helloOf("0.2.0", rc::wire::kProtocolVersion, rc::kManifestFormat + 1));
  EXPECT_NE(
      why.find("manifest format " + std::to_string(rc::kManifestFormat + 1)),
      std::string::npos)
      << why;
  EXPECT_NE(why.find("upgrade rc-server"), std::string::npos) << why;
}

TEST_F(VersionSkewTest, AnotherReleaseOfTheSameProtocolIsServed) {
  // A later revision's extra Hello field is skipped, not refused.
  Bytes r = send1(
      helloOf("0.3.7", rc::wire::kProtocolVersion, rc::kManifestFormat, true));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_NE(hr, nullptr);
  EXPECT_TRUE(hr->ok()) << (hr->error() ? hr->error()->str() : "");
  ASSERT_NE(hr->server_version(), nullptr);
  EXPECT_EQ(hr->server_version()->str(), rc::kReleaseVersion);
  EXPECT_EQ(hr->manifest_format(), rc::kManifestFormat);
}

TEST_F(VersionSkewTest, AClientFromBeforeVersionsWereExchangedIsNamedSo) {
  std::string why = refusal(hello({m.hash}, rc::wire::kProtocolVersion + 1));
  EXPECT_NE(why.find("from before versions were exchanged"), std::string::npos)
      << why;
  EXPECT_NE(why.find("upgrade rc-server"), std::string::npos) << why;
}

TEST_F(VersionSkewTest, AnUnreadableFirstMessageNamesTheServersRelease) {
  Bytes junk(64, 0x5a);
  std::string why = refusal(junk);
  EXPECT_NE(why.find(serverVersionText()), std::string::npos) << why;
}

} // namespace
