// What peers that never authenticate make rc-server hold, measured in its
// resident memory: silent peers that finish the transport handshake and
// say nothing, more of them than the server keeps, hold no more than the
// connections it may keep before authentication (RC_SERVER_MAX_PENDING
// waiting for their Hello, and as many transport handshakes) times what
// one connection costs; a key holder still gets in meanwhile. The larger
// runs and their numbers: test/stress/preauth-memory.sh, docs/security.md
// ("Before authentication").
#include "hand_client.h"
#include "key_dir.h"
#include "process_util.h"
#include "raw_peer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

using namespace rc::server::test;
using rc::transport::test::RawPeer;

namespace {

// VmRSS of `pid` in KiB (0 if unreadable).
long residentKiB(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return 0;
}

struct Case {
  std::string transport;
  long perConnectionKiB; // what one pre-authentication connection may cost
};

class PreauthMemory : public ::testing::TestWithParam<Case> {};

// 12 silent peers against a server that keeps 3 waiting for their Hello
// and works on 3 transport handshakes: it holds at most 6 of them.
TEST_P(PreauthMemory, SilentPeersHoldNoMoreThanTheConnectionsItKeeps) {
  const Case &c = GetParam();
  constexpr int kPending = 3, kPeers = 12;
  TestManifest m = writeTestManifest();
  rc::test::KeyDir dir;
  std::string keyFile = dir.newKey("key", "team-a");
  std::vector<rc::auth::Key> keys;
  std::string error;
  ASSERT_TRUE(rc::auth::loadKeyFile(keyFile, &keys, &error)) << error;
  std::string url = c.transport == "tcp"
                        ? "tcp://127.0.0.1:" + std::to_string(freePort())
                        : "shm://rc_preauth_" + std::to_string(getpid());
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--auth-key-file", keyFile},
               serverBin(), [] { setenv("RC_SERVER_MAX_PENDING", "3", 1); });
  ASSERT_TRUE(server.waitFor("listening on", 20000)) << server.text;
  // Its first sessions warm the allocator and the provider up.
  for (int i = 0; i < 2; ++i) {
    HandClient warm;
    ASSERT_TRUE(opened(warm.handshake(url, m.hash, keys[0])));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long before = residentKiB(server.pid);
  long peak = before;
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < kPeers; ++i) {
    auto p = std::make_unique<RawPeer>();
    std::string err;
    if (p->connect(url, 3000, &err)) // refused ones are dropped ones
      peers.push_back(std::move(p));
    peak = std::max(peak, residentKiB(server.pid));
  }
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    peak = std::max(peak, residentKiB(server.pid));
  }
  HandClient honest;
  Bytes reply = honest.handshake(url, m.hash, keys[0]);
  EXPECT_TRUE(opened(reply)) << refusalOf(reply);
  peak = std::max(peak, residentKiB(server.pid));
  const long bound = 2 * kPending * c.perConnectionKiB;
  std::printf("[ pre-auth ] %s: %d silent peers (%zu connected), rc-server "
              "%ld -> peak %ld KiB (+%ld; bound %ld)\n",
              c.transport.c_str(), kPeers, peers.size(), before, peak,
              peak - before, bound);
  EXPECT_LE(peak - before, bound);
}

// One connection before authentication, measured on the 2-core build
// machine: tcp 19-38 MiB (rxm's buffer pools, at its endpoint's opening
// and at its first send), shm 3-6 MiB (its region).
INSTANTIATE_TEST_SUITE_P(Transports, PreauthMemory,
                         ::testing::Values(Case{"tcp", 48 << 10},
                                           Case{"shm", 8 << 10}),
                         [](const auto &info) { return info.param.transport; });

} // namespace
