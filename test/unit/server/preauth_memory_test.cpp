// What peers that never authenticate make rc-server hold, measured in its
// resident memory: a server with keys answers the transport handshake with
// an admission challenge and opens nothing (no private endpoint, no shm
// region) before a key is proved, so silent peers that did the handshake
// hold less than 1 MiB each, and a key holder still gets in meanwhile. The
// larger runs and their numbers: test/stress/preauth-memory.sh,
// docs/tenants.md ("Before authentication").
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

// What the server may hold beyond the peers' 1 MiB each: the allocator's
// and the well-known endpoint's growth as the first ones come (measured:
// tcp +116 KiB for 8 peers, shm none). The key holder who connects after
// them opens a session of its own (tcp: some 35 MiB of rxm pools), which
// is not the peers' and is left out.
constexpr long kConstantKiB = 2 << 10;

class PreauthMemory : public ::testing::TestWithParam<std::string> {};

// Silent peers (each holds an endpoint of its own in this process: tcp's
// cost some 35 MiB) against a server with keys, in two waves, 8 and then
// 16 more: the whole growth stays under 1 MiB a peer plus the constant,
// and the second wave's under 1 MiB a peer.
TEST_P(PreauthMemory, SilentPeersHoldLessThanAMebibyteEach) {
  constexpr int kFirst = 8, kSecond = 16;
  TestManifest m = writeTestManifest();
  rc::test::KeyDir dir;
  std::string keyFile = dir.newKey("key", "team-a");
  std::vector<rc::auth::Key> keys;
  std::string error;
  ASSERT_TRUE(rc::auth::loadKeyFile(keyFile, &keys, &error)) << error;
  std::string url = freshUrl(GetParam(), "rc_preauth");
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--auth-key-file", keyFile},
               serverBin());
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
  int challenged = 0;
  auto wave = [&](int n) {
    for (int i = 0; i < n; ++i) {
      auto p = std::make_unique<RawPeer>();
      std::string err;
      EXPECT_TRUE(p->connect(url, 3000, &err)) << err;
      challenged += p->challenged();
      peers.push_back(std::move(p));
      peak = std::max(peak, residentKiB(server.pid));
    }
    for (int i = 0; i < 10; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      for (auto &p : peers)
        p->closedByServer(); // keeps the peers' providers moving
      peak = std::max(peak, residentKiB(server.pid));
    }
    return peak;
  };
  const long afterFirst = wave(kFirst);
  const long afterSecond = wave(kSecond);
  HandClient honest;
  Bytes reply = honest.handshake(url, m.hash, keys[0]);
  EXPECT_TRUE(opened(reply)) << refusalOf(reply);
  const int all = kFirst + kSecond;
  const long bound = all * 1024 + kConstantKiB;
  std::printf("[ pre-auth ] %s: %d silent peers (%d challenged), rc-server "
              "%ld -> %ld after %d -> peak %ld KiB (+%ld; bound %ld; the "
              "last %d: +%ld)\n",
              GetParam().c_str(), all, challenged, before, afterFirst, kFirst,
              afterSecond, afterSecond - before, bound, kSecond,
              afterSecond - afterFirst);
  EXPECT_EQ(challenged, all) << "a peer without a key got a connection";
  EXPECT_LE(afterSecond - before, bound);
  EXPECT_LE(afterSecond - afterFirst, kSecond * 1024);
}

INSTANTIATE_TEST_SUITE_P(Transports, PreauthMemory,
                         ::testing::Values("tcp", "shm"),
                         [](const auto &info) { return info.param; });

} // namespace
