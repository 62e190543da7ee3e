// The runtime and rc-server's core over tcp with sealing (docs/security.md,
// "Encryption in transit"): with keys, a tcp client off this host is sealed
// after the key exchange. This binary counts loopback as off this host
// (RC_DEV_TRANSPORT_SEAL_LOOPBACK=1, set below before the transport reads it):
// the address is the only thing the decision looks at, and everything after
// it (keys, records, lanes, writes) is the code a remote client runs. The
// socket-layer tap (test/unit/transport/wire_tap.h) shows what crossed:
// copies of every size land, and none of their bytes is on the wire; under
// --insecure-transport, or without keys, they are.
#include "in_process_runtime.h"
#include "key_dir.h"
#include "session/transport_sealing.h"
#include "wire_tap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace st = rc::server::test;
using namespace rc;
using rc::test::KeyDir;
using rc::transport::test::WireTap;

namespace {

const bool kSealLoopback =
    (setenv("RC_DEV_TRANSPORT_SEAL_LOOPBACK", "1", 1), true);

std::vector<uint8_t> secretText(size_t size) {
  const char *line = "PROMPT: the secret plans of the tenant, in plain text. ";
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i)
    v[i] = uint8_t(line[i % std::strlen(line)]);
  return v;
}

class SealedRuntimeTest : public st::TransportRuntimeTest {
protected:
  void TearDown() override {
    st::TransportRuntimeTest::TearDown();
    server::setInsecureTransport(false);
  }
  // Connects with keys (or none) and copies `size` bytes of secret text to
  // the device and back; whether the text crossed the sockets.
  bool copyAndLook(bool withKeys, size_t size) {
    std::string key = withKeys ? keys.newKey("k" + std::to_string(size)) : "";
    rt::Connector connector = startServer(key);
    rt::Options opts;
    opts.flusherThread = false;
    opts.authKeyFile = key;
    rt = std::make_unique<rt::Runtime>(connector,
                                       st::testManifestLoader(m.path), opts);
    WireTap::record();
    EXPECT_EQ(rt->ensureConnected(), cudaSuccess);
    void *d = nullptr;
    EXPECT_EQ(rt->malloc(&d, size), cudaSuccess);
    std::vector<uint8_t> in = secretText(size), out(size, 0);
    EXPECT_EQ(rt->memcpy(d, in.data(), size, cudaMemcpyHostToDevice, nullptr,
                         false, false),
              cudaSuccess);
    EXPECT_EQ(rt->memcpy(out.data(), d, size, cudaMemcpyDeviceToHost, nullptr,
                         false, false),
              cudaSuccess);
    WireTap::stop();
    EXPECT_EQ(out, in);
    std::vector<uint8_t> marker = secretText(48);
    return WireTap::recordedContains(marker);
  }
  KeyDir keys;
};

// Small (inline), a Write frame on the connection, and the lanes.
TEST_P(SealedRuntimeTest, SmallCopiesCrossSealed) {
  ASSERT_TRUE(kSealLoopback);
  EXPECT_FALSE(copyAndLook(true, 4000));
}
TEST_P(SealedRuntimeTest, RingAndReadBackWritesCrossSealed) {
  EXPECT_FALSE(copyAndLook(true, 200000));
}
TEST_P(SealedRuntimeTest, LaneWritesCrossSealed) {
  EXPECT_FALSE(copyAndLook(true, size_t(9) << 20));
}

TEST_P(SealedRuntimeTest, InsecureTransportLeavesThemClear) {
  server::setInsecureTransport(true);
  EXPECT_TRUE(copyAndLook(true, 200000));
}

TEST_P(SealedRuntimeTest, AConnectionWithoutAKeyStaysClear) {
  EXPECT_TRUE(copyAndLook(false, 200000));
}

INSTANTIATE_TEST_SUITE_P(Transports, SealedRuntimeTest,
                         ::testing::Values("tcp"));

} // namespace
