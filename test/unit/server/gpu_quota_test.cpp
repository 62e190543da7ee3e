// Tenants' device memory quotas (rc-server --quotas device=SIZE) against
// real device memory: a tenant's sessions together hold at most its quota
// of cudaMalloc'd bytes, a refusal names the quota, memory freed in one
// session fits in another, the memory granted is real (a kernel writes
// its last bytes), and an allocation the GPU itself refuses costs the
// tenant's quota nothing.
#include "gpu_server_fixture.h"
#include "rc/auth/proof.h"
#include "rc/hex.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace rc;
using namespace rc::server;
using namespace rc::server::test;

namespace {

constexpr uint64_t kMiB = 1 << 20;

class GpuQuotaTest : public GpuServerTest {
protected:
  void configure(ServerOptions &o) override {
    char tmpl[] = "/tmp/rc_gpu_quota_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    for (auth::Key *k : {&a, &b}) {
      k->secret.resize(32);
      ASSERT_TRUE(auth::randomBytes(k->secret.data(), k->secret.size()));
    }
    o.authKeyFile = write("keys", line(a) + line(b));
    o.quotasFile = write("quotas", "team-a device=64MiB\nteam-b device=1TiB\n");
  }
  void TearDown() override {
    for (const char *f : {"keys", "quotas"})
      unlink((dir + "/" + f).c_str());
    rmdir(dir.c_str());
  }
  static std::string line(const auth::Key &k) {
    return k.id + " " + hexBytes(k.secret.data(), k.secret.size()) + "\n";
  }
  std::string write(const std::string &name, const std::string &text) {
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0600);
    return path;
  }

  // A session of the tenant holding `key`, past its challenge.
  MemClient connectAs(const auth::Key &key) {
    auto ends = memPair();
    core.serve(std::move(ends.second));
    MemClient c{std::move(ends.first), kReplyTimeoutMs};
    Bytes nonce(32, 0x42);
    Bytes h = authHello({g.hash}, key.id, nonce);
    Bytes reply = c.roundTrip(h);
    const wire::AuthChallenge *challenge = asAuthChallenge(reply);
    EXPECT_NE(challenge, nullptr);
    if (!challenge)
      return c;
    auth::Transcript t;
    t.keyId = key.id;
    std::memcpy(t.clientNonce.data(), nonce.data(), nonce.size());
    std::memcpy(t.serverNonce.data(), challenge->server_nonce()->data(),
                t.serverNonce.size());
    t.sessionId = challenge->session_id();
    t.helloDigest = auth::sha256(h.data(), h.size());
    auth::Proof proof;
    EXPECT_TRUE(auth::clientProof(key, t, &proof));
    reply = c.roundTrip(authResponse(Bytes(proof.begin(), proof.end())));
    const wire::HelloReply *hr = asHelloReply(reply);
    EXPECT_TRUE(hr && hr->ok())
        << (hr && hr->error() ? hr->error()->str() : "no HelloReply");
    if (hr && hr->devices() && hr->devices()->size())
      totalMem = hr->devices()->Get(0)->total_mem();
    return c;
  }
  // cudaMalloc of `bytes`: the address, or 0 with *why (the error).
  static uint64_t allocate(MemClient &c, uint64_t seq, uint64_t bytes,
                           std::string *why = nullptr, int *code = nullptr) {
    Bytes r = c.roundTrip(batch(seq, {cMalloc(bytes)}));
    const wire::BatchReply *br = asBatchReply(r);
    if (br && br->errors() && br->errors()->size()) {
      if (why)
        *why = br->errors()->Get(0)->message()->str();
      if (code)
        *code = br->errors()->Get(0)->code();
      return 0;
    }
    const wire::Result *res = resultAt(br, 0);
    return res ? res->addr() : 0;
  }

  std::string dir;
  auth::Key a{"team-a", {}}, b{"team-b", {}};
  uint64_t totalMem = 0; // device 0's, from the last HelloReply
};

TEST_F(GpuQuotaTest, ATenantsSessionsHoldAtMostItsQuotaOfRealMemory) {
  MemClient one = connectAs(a), two = connectAs(a);
  uint64_t big = allocate(one, 1, 48 * kMiB);
  ASSERT_NE(big, 0u);
  // The memory is real: a kernel scales its last 256 floats.
  const uint64_t tail = big + 48 * kMiB - 1024;
  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i)
    in[size_t(i)] = float(i);
  Bytes three(4);
  float f = 3.0f;
  std::memcpy(three.data(), &f, 4);
  Bytes r = one.roundTrip(batch(
      2, {cH2D(tail, floats(in)), cSymbolWrite(g.table, 0, three),
          cLaunch(g.scale, scaleArgs(tail, 256), 0, {1, 1, 1}, {256, 1, 1}),
          cD2H(tail, 1024)}));
  const wire::Result *read = resultAt(ok(r), 3);
  ASSERT_TRUE(read && read->payload());
  for (int i = 0; i < 256; ++i) {
    float out;
    std::memcpy(&out, read->payload()->data() + 4 * i, 4);
    ASSERT_EQ(out, 3.0f * float(i)) << i;
  }
  // The other session of the tenant: 32 MiB more do not fit...
  std::string why;
  int code = 0;
  EXPECT_EQ(allocate(two, 1, 32 * kMiB, &why, &code), 0u);
  EXPECT_EQ(code, 2); // cudaErrorMemoryAllocation
  EXPECT_NE(why.find("tenant 'team-a''s device memory (50331648 of 67108864 "
                     "bytes in use; its quota device=67108864 in"),
            std::string::npos)
      << why;
  // ...16 do, and once the first session freed its 48, the 32 fit.
  EXPECT_NE(allocate(two, 2, 16 * kMiB), 0u);
  ok(one.roundTrip(batch(3, {cFree(big), cDeviceSync()})));
  EXPECT_NE(allocate(two, 3, 32 * kMiB), 0u);
}

TEST_F(GpuQuotaTest, WhatTheGpuItselfRefusesCostsTheQuotaNothing) {
  MemClient c = connectAs(b);
  std::string why;
  int code = 0;
  // All of the GPU's memory (its contexts hold some already): within
  // team-b's 1 TiB quota and the device's size, refused by CUDA itself.
  ASSERT_GT(totalMem, 0u);
  EXPECT_EQ(allocate(c, 1, totalMem, &why, &code), 0u);
  EXPECT_EQ(code, 2) << why;
  EXPECT_EQ(why.find("quota"), std::string::npos) << why;
  EXPECT_EQ(why.find("exceed the device memory"), std::string::npos) << why;
  // Nothing of it stays counted: team-a's quota (a fresh session) and
  // team-b's own next allocation are as before.
  EXPECT_NE(allocate(c, 2, 16 * kMiB), 0u);
  MemClient other = connectAs(a);
  EXPECT_NE(allocate(other, 1, 64 * kMiB), 0u);
}

} // namespace
