// Unit tests of the internal framing helpers (transport/src/frame.h): the
// handshake payload must round-trip and malformed input must be rejected,
// because the listener parses whatever arrives on its well-known endpoint.
#include "frame.h"
#include "rc/transport.h"
#include "url.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace rc::transport::detail;

TEST(TransportFrame, HelloRoundTrips) {
  Hello h;
  h.nonce = 0x1122334455667788ull;
  h.pid = 4242;
  h.hostname = "gpu-host";
  h.address = {1, 2, 3, 0, 255};
  h.lanes = 4;
  h.lanePort = 40123;
  h.laneToken[0] = 9;
  h.laneToken[15] = 200;
  auto bytes = encodeHello(FrameType::Connect, h);
  ASSERT_GT(bytes.size(), sizeof(FrameHeader));
  FrameHeader fh;
  std::memcpy(&fh, bytes.data(), sizeof fh);
  EXPECT_EQ(fh.magic, kFrameMagic);
  EXPECT_EQ(fh.type, static_cast<uint16_t>(FrameType::Connect));
  Hello d;
  ASSERT_TRUE(
      decodeHello(bytes.data() + sizeof fh, bytes.size() - sizeof fh, &d));
  EXPECT_EQ(d.version, kProtocolVersion);
  EXPECT_EQ(d.nonce, h.nonce);
  EXPECT_EQ(d.pid, h.pid);
  EXPECT_EQ(d.hostname, h.hostname);
  EXPECT_EQ(d.address, h.address);
  EXPECT_EQ(d.lanes, 4);
  EXPECT_EQ(d.lanePort, 40123);
  EXPECT_EQ(d.laneToken, h.laneToken);
}

TEST(TransportFrame, TruncatedHelloIsRejected) {
  Hello h;
  h.hostname = "host";
  h.address = std::vector<uint8_t>(16, 7);
  auto bytes = encodeHello(FrameType::Accept, h);
  size_t payload = bytes.size() - sizeof(FrameHeader);
  // An older peer's hello ends after the address (no lanes): every other
  // strict prefix is malformed.
  const size_t lanesStart = payload - 1 - 2 - h.laneToken.size();
  for (size_t n = 0; n < payload; ++n) {
    Hello d;
    EXPECT_EQ(decodeHello(bytes.data() + sizeof(FrameHeader), n, &d),
              n == lanesStart)
        << "prefix of " << n << " bytes";
    if (n == lanesStart)
      EXPECT_EQ(d.lanes, 0);
  }
}

TEST(TransportFrame, UrlPartsAreExtracted) {
  Url u;
  std::string err;
  ASSERT_TRUE(parseUrl("tcp://10.1.2.3:5555", &u, &err)) << err;
  EXPECT_EQ(u.provider, Provider::Tcp);
  EXPECT_EQ(u.host, "10.1.2.3");
  EXPECT_EQ(u.port, "5555");
  ASSERT_TRUE(parseUrl("shm://rc-server.0", &u, &err)) << err;
  EXPECT_EQ(u.provider, Provider::Shm);
  EXPECT_EQ(u.shmName, "rc-server.0");
  EXPECT_STREQ(providerName(Provider::Tcp), "tcp;ofi_rxm");
  EXPECT_STREQ(providerName(Provider::Shm), "shm");
}

// HelloReply.redirect (rc-server --isolation process): a port alone is on
// the host the client reached; a redirect to another kind of address or a
// malformed one is refused.
TEST(TransportFrame, RedirectsResolveAgainstTheAddressReached) {
  std::string err;
  EXPECT_EQ(rc::transport::redirectUrl("tcp://:4100", "tcp://gpu-1:7070", &err),
            "tcp://gpu-1:4100");
  EXPECT_EQ(rc::transport::redirectUrl("tcp://10.0.0.2:4100",
                                       "tcp://gpu-1:7070", &err),
            "tcp://10.0.0.2:4100");
  EXPECT_EQ(rc::transport::redirectUrl("shm://rc.w12-1", "shm://rc", &err),
            "shm://rc.w12-1");
  EXPECT_EQ(rc::transport::redirectUrl("shm://rc.w1", "tcp://gpu-1:7070", &err),
            "");
  EXPECT_NE(err.find("another kind of address"), std::string::npos) << err;
  EXPECT_EQ(rc::transport::redirectUrl("tcp://:x", "tcp://gpu-1:7070", &err),
            "");
  EXPECT_NE(err.find("port must be a number"), std::string::npos) << err;
}
