// The rc-server binary on a real GPU over tcp: a client runs a kernel; a
// kernel fault poisons the process, so rc-server restarts itself on the same
// address and serves new clients; with --isolation process the fault ends
// only its own session. Skipped where libcuda.so.1 is missing.
#include "gpu_manifest.h"
#include "hand_client.h"
#include "isolated_client.h"
#include "key_dir.h"
#include "process_util.h"
#include "rc/hex.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace rc::server::test;

namespace {

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

struct Remote {
  std::unique_ptr<rc::transport::Connection> conn;
  Bytes roundTrip(const Bytes &msg) {
    return rc::server::test::roundTrip(*conn, msg, 20000);
  }
};

// Connects (retrying while the server restarts) and says Hello.
bool open(Remote &r, const std::string &url, uint64_t hash) {
  std::string err;
  for (int i = 0; i < 100 && !r.conn; ++i) {
    r.conn = rc::transport::connect(url, 2000, &err);
    if (!r.conn)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!r.conn) {
    ADD_FAILURE() << err;
    return false;
  }
  const wire::HelloReply *hr;
  Bytes reply = r.roundTrip(hello({hash}));
  hr = asHelloReply(reply);
  if (!hr || !hr->ok()) {
    ADD_FAILURE() << (hr && hr->error() ? hr->error()->str() : "no reply");
    return false;
  }
  return hr->devices()->Get(0)->backend()->str() == "cuda";
}

// scale(p, 256) with gTable[0] = 3: every float triples.
void runScale(Remote &r, const GpuManifest &g) {
  Bytes reply = r.roundTrip(batch(1, {cMalloc(1024)}));
  const auto *allocated = resultAt(asBatchReply(reply), 0);
  ASSERT_NE(allocated, nullptr) << "cudaMalloc(1024) failed";
  uint64_t buf = allocated->addr();
  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i)
    in[i] = float(i);
  Bytes data(1024), three(4);
  std::memcpy(data.data(), in.data(), 1024);
  float f = 3.0f;
  std::memcpy(three.data(), &f, 4);
  reply = r.roundTrip(batch(
      2, {cH2D(buf, data), cSymbolWrite(g.table, 0, three),
          cLaunch(g.scale, scaleArgs(buf, 256), 0, {1, 1, 1}, {256, 1, 1}),
          cD2H(buf, 1024)}));
  const wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && br->errors()->size() == 0);
  std::vector<float> out(256);
  std::memcpy(out.data(), resultAt(br, 3)->payload()->data(), 1024);
  for (int i = 0; i < 256; ++i)
    ASSERT_EQ(out[i], 3.0f * float(i));
}

TEST(GpuCli, ServesKernelsAndRestartsAfterAFault) {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU server test here";
  GpuManifest g = writeGpuManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", g.path});
  if (!server.waitFor("listening on", 30000)) {
    // libcuda without a usable GPU (a CI machine with the driver library).
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  std::printf("%s", server.text.c_str());
  {
    Remote a;
    ASSERT_TRUE(open(a, url, g.hash));
    runScale(a, g);
    Bytes reply = a.roundTrip(batch(1, {cMalloc(256)}));
    uint64_t buf = resultAt(asBatchReply(reply), 0)->addr();
    reply = a.roundTrip(batch(2, {cLaunch(g.scale, scaleArgs(buf, 1 << 30), 0,
                                          {1 << 20, 1, 1}, {1024, 1, 1}),
                                  cDeviceSync()}));
    const wire::BatchReply *br = asBatchReply(reply);
    ASSERT_TRUE(br && br->errors()->size() == 1);
    EXPECT_EQ(br->errors()->Get(0)->code(), 700);
  }
  ASSERT_TRUE(server.waitFor("restarting", 20000)) << server.text;
  for (int i = 0; i < 300 && count(server.text, "listening on") < 2; ++i)
    server.waitFor("\x01", 100);
  ASSERT_EQ(count(server.text, "listening on"), 2u) << server.text;
  Remote b;
  ASSERT_TRUE(open(b, url, g.hash));
  runScale(b, g);
  b.conn.reset();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  std::printf("%s", server.text.c_str());
}

// With --isolation process: a session in the worker reserved for this
// client; true when it is open on the GPU.
bool openIsolated(Remote &r, const std::string &url, uint64_t hash) {
  Bytes reply;
  r.conn = openIsolatedSession(url, {hash}, &reply);
  const wire::HelloReply *hr = r.conn ? asHelloReply(reply) : nullptr;
  return hr && hr->devices()->Get(0)->backend()->str() == "cuda";
}

// 256 floats i*3 in a new allocation of the session; its address.
uint64_t scaledBuffer(Remote &r, const GpuManifest &g) {
  Bytes reply = r.roundTrip(batch(10, {cMalloc(1024)}));
  uint64_t buf = resultAt(asBatchReply(reply), 0)->addr();
  Bytes data(1024), three(4);
  for (int i = 0; i < 256; ++i) {
    float f = float(i);
    std::memcpy(data.data() + 4 * i, &f, 4);
  }
  float f = 3.0f;
  std::memcpy(three.data(), &f, 4);
  reply = r.roundTrip(batch(
      11, {cH2D(buf, data), cSymbolWrite(g.table, 0, three),
           cLaunch(g.scale, scaleArgs(buf, 256), 0, {1, 1, 1}, {256, 1, 1}),
           cDeviceSync()}));
  const wire::BatchReply *br = asBatchReply(reply);
  EXPECT_TRUE(br && br->errors()->size() == 0);
  return buf;
}

// Whether `buf` (scaledBuffer's) still holds i*3.
bool holdsScaled(Remote &r, uint64_t buf) {
  Bytes reply = r.roundTrip(batch(12, {cD2H(buf, 1024)}));
  const wire::BatchReply *br = asBatchReply(reply);
  if (!br || br->errors()->size() != 0)
    return false;
  std::vector<float> out(256);
  std::memcpy(out.data(), resultAt(br, 0)->payload()->data(), 1024);
  for (int i = 0; i < 256; ++i)
    if (out[i] != 3.0f * float(i))
      return false;
  return true;
}

// Three sessions at once, each in its worker process: one hits a device
// assert while another has a kernel running. The assert is that session's
// sticky error (710, naming the kernel and its launch site); the others
// keep their memory and results, finish their work and start more; the
// server restarts nothing, and a new client is served.
TEST(GpuCli, ADeviceAssertEndsOnlyItsOwnSessionWithIsolation) {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU server test here";
  GpuManifest g = writeGpuManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  // Time-sliced: a context per process of its own, whose faults stay in it
  // (under MPS they reach the other clients: gpu_mps_test.cpp).
  Child server({"--listen", url, "--manifest", g.path, "--isolation", "process",
                "--warm-workers", "3", "--gpu-sharing", "timeslice"});
  if (!server.waitFor("listening on", 60000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  Remote a, b, c;
  ASSERT_TRUE(openIsolated(a, url, g.hash));
  ASSERT_TRUE(openIsolated(b, url, g.hash));
  ASSERT_TRUE(openIsolated(c, url, g.hash));
  uint64_t bufA = scaledBuffer(a, g), bufC = scaledBuffer(c, g);
  ASSERT_TRUE(holdsScaled(a, bufA));
  ASSERT_TRUE(holdsScaled(c, bufC));
  // A kernel of a's runs (about 0.5 s at ~2 GHz) while b's assert fires.
  Bytes spin(8);
  long long cycles = 1000000000LL;
  std::memcpy(spin.data(), &cycles, 8);
  a.roundTrip(batch(20, {cLaunch(g.spin, spin, 0, {1, 1, 1}, {1, 1, 1})},
                    /*replyWanted=*/true));
  Bytes failing(4);
  int thread = 5;
  std::memcpy(failing.data(), &thread, 4);
  Bytes reply = b.roundTrip(
      batch(21, {cLaunch(g.check, failing, 0, {1, 1, 1}, {32, 1, 1}),
                 cDeviceSync()}));
  const wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && br->errors()->size() == 1);
  EXPECT_EQ(br->errors()->Get(0)->code(), 710);
  std::string message = br->errors()->Get(0)->message()->str();
  EXPECT_NE(message.find("check(int)"), std::string::npos) << message;
  EXPECT_NE(message.find("gpu_test.cpp:1"), std::string::npos) << message;
  // b's session keeps its sticky error, as in CUDA.
  reply = b.roundTrip(batch(22, {cMalloc(256)}));
  br = asBatchReply(reply);
  ASSERT_TRUE(br && br->errors()->size() == 1);
  EXPECT_EQ(br->errors()->Get(0)->code(), 710);
  // a and c lost nothing: a's kernel finishes, both buffers hold their
  // numbers, and both run more work.
  reply = a.roundTrip(batch(23, {cDeviceSync()}));
  br = asBatchReply(reply);
  ASSERT_TRUE(br && br->errors()->size() == 0)
      << br->errors()->Get(0)->message()->str();
  EXPECT_TRUE(holdsScaled(a, bufA));
  EXPECT_TRUE(holdsScaled(c, bufC));
  runScale(a, g);
  runScale(c, g);
  b.conn.reset();
  ASSERT_TRUE(server.waitFor("no other session is affected", 20000))
      << server.text;
  Remote d;
  ASSERT_TRUE(openIsolated(d, url, g.hash));
  runScale(d, g);
  EXPECT_EQ(count(server.text, "restarting"), 0u) << server.text;
  a.conn.reset();
  c.conn.reset();
  d.conn.reset();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  std::printf("%s", server.text.c_str());
}

// --isolation process with --quotas, two tenants: team-a's session holds
// 192 of its 256 MiB and hits a device assert while team-b's session holds
// memory and runs a kernel. Only team-a's worker ends; team-b keeps its
// memory, its results and its own quota; team-a's session and device
// quota come back with the worker's end (its row of the budget table), so
// a new session of team-a gets its full 256 MiB.
TEST(GpuCli, ADeviceAssertUnderQuotasGivesTheQuotaBackWithIsolation) {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU server test here";
  GpuManifest g = writeGpuManifest();
  rc::test::KeyDir dir;
  rc::auth::Key a{"team-a", Bytes(32)}, b{"team-b", Bytes(32)};
  rc::auth::randomBytes(a.secret.data(), 32);
  rc::auth::randomBytes(b.secret.data(), 32);
  auto line = [](const rc::auth::Key &k) {
    return k.id + " " + rc::hexBytes(k.secret.data(), 32) + "\n";
  };
  std::string keys = dir.write("keys", line(a) + line(b), 0600);
  std::string quotas = dir.write(
      "quotas",
      "team-a sessions=1 device=256MiB\nteam-b sessions=1 device=256MiB\n",
      0600);
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", g.path, "--isolation", "process",
                "--warm-workers", "2", "--auth-key-file", keys, "--quotas",
                quotas, "--gpu-sharing", "timeslice"});
  if (!server.waitFor("listening on", 60000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  // A tenant's session in its worker, authenticated at both.
  auto session = [&](const rc::auth::Key &key, Remote *r) {
    HandClient sup, worker;
    Redirected to = redirectIn(sup.handshake(url, g.hash, key), url);
    if (to.url.empty())
      return false;
    Bytes reply = worker.handshake(to.url, g.hash, key, to.ticket);
    r->conn = std::move(worker.conn);
    return opened(reply);
  };
  auto allocate = [](Remote &r, uint64_t seq, uint64_t bytes) {
    Bytes reply = r.roundTrip(batch(seq, {cMalloc(bytes)}));
    const wire::BatchReply *br = asBatchReply(reply);
    return br && br->errors()->size() == 0 ? resultAt(br, 0)->addr() : 0;
  };
  const uint64_t mib = 1 << 20;
  Remote ra, rb;
  ASSERT_TRUE(session(a, &ra));
  ASSERT_TRUE(session(b, &rb));
  ASSERT_NE(allocate(ra, 1, 192 * mib), 0u);
  ASSERT_NE(allocate(rb, 1, 192 * mib), 0u);
  uint64_t bufB = scaledBuffer(rb, g);
  // team-a is at its quota: a second session is refused.
  Remote extra;
  EXPECT_FALSE(session(a, &extra));
  Bytes failing(4);
  int thread = 3;
  std::memcpy(failing.data(), &thread, 4);
  Bytes reply = ra.roundTrip(
      batch(30, {cLaunch(g.check, failing, 0, {1, 1, 1}, {32, 1, 1}),
                 cDeviceSync()}));
  const wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && br->errors()->size() == 1);
  EXPECT_EQ(br->errors()->Get(0)->code(), 710);
  ra.conn.reset();
  ASSERT_TRUE(server.waitFor("no other session is affected", 20000))
      << server.text;
  // team-b lost nothing, and still has only its own 64 MiB to spare.
  EXPECT_TRUE(holdsScaled(rb, bufB));
  runScale(rb, g);
  EXPECT_EQ(allocate(rb, 40, 128 * mib), 0u);
  EXPECT_NE(allocate(rb, 41, 32 * mib), 0u);
  // team-a's session and its 256 MiB are back.
  Remote again;
  for (int i = 0; i < 50 && !again.conn; ++i) {
    if (session(a, &again))
      break;
    again.conn.reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(again.conn) << server.text;
  uint64_t whole = allocate(again, 1, 256 * mib);
  EXPECT_NE(whole, 0u);
  // Freed again: the kernel below needs a buffer of its own.
  Bytes freed = again.roundTrip(batch(2, {cFree(whole)}));
  const wire::BatchReply *fr = asBatchReply(freed);
  EXPECT_TRUE(fr && fr->errors()->size() == 0);
  runScale(again, g);
  EXPECT_EQ(count(server.text, "restarting"), 0u) << server.text;
  again.conn.reset();
  rb.conn.reset();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  std::printf("%s", server.text.c_str());
}

// Large copies against the real GPU, over both transports: the upload goes
// into the session's pinned upload ring (tcp: cuMemHostAlloc memory written
// by RMA; shm: a shared file registered with cuMemHostRegister, which the
// client maps) and is copied from there, the read-back is written from the
// pinned staging straight into the client's exposed buffer.
TEST(GpuCli, RmaUploadsAndReadBacksOverTcpAndShm) {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU server test here";
  GpuManifest g = writeGpuManifest();
  for (std::string url : {"tcp://127.0.0.1:" + std::to_string(freePort()),
                          "shm://rc_gpu_rma_" + std::to_string(getpid())}) {
    Child server({"--listen", url, "--manifest", g.path});
    if (!server.waitFor("listening on", 30000)) {
      if (noUsableGpu(server.text))
        GTEST_SKIP() << server.text;
      FAIL() << server.text;
    }
    Remote r;
    std::string err;
    r.conn = rc::transport::connect(url, 5000, &err);
    ASSERT_TRUE(r.conn) << err;
    Bytes reply = r.roundTrip(hello({g.hash}, 1, 32 << 20));
    const wire::HelloReply *hr = asHelloReply(reply);
    ASSERT_TRUE(hr && hr->ok());
    ASSERT_NE(hr->upload_ring(), nullptr) << url << ": no upload ring";
    // Copied out: `reply` is replaced by the next round trip.
    const rc::transport::RemoteRegion ring{hr->upload_ring()->addr(),
                                           hr->upload_ring()->key()};
    const std::string ringFile =
        hr->upload_ring()->file() ? hr->upload_ring()->file()->str() : "";
    const uint64_t ringSize = hr->upload_ring()->size();
    // Over shm the ring is a file this side maps, not memory exposed to RMA.
    std::shared_ptr<uint8_t> mapped;
    if (!ringFile.empty())
      mapped = mapServerFile(ringFile, ringSize);
    EXPECT_EQ(bool(mapped), url.rfind("shm://", 0) == 0) << url;

    // Back over tcp's lanes in pieces of 1 MiB per lane (8 MiB, 8 MiB and a
    // short one), over shm through many staging slots.
    const size_t n = (19 << 20) + 12288;
    std::vector<float> in(n / 4);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = float(i % 1000);
    reply = r.roundTrip(batch(1, {cMalloc(n)}));
    uint64_t buf = resultAt(asBatchReply(reply), 0)->addr();
    if (mapped)
      std::memcpy(mapped.get() + 4096, in.data(), n);
    else
      ASSERT_EQ(r.conn->writeRemote(in.data(), n, {ring.addr + 4096, ring.key}),
                rc::transport::Status::Ok)
          << r.conn->lastError();
    std::vector<float> out(in.size(), -1.0f);
    rc::transport::RemoteRegion dst;
    ASSERT_TRUE(r.conn->exposeForWrite(out.data(), n, &dst));
    Bytes three(4);
    float f = 3.0f;
    std::memcpy(three.data(), &f, 4);
    reply = r.roundTrip(batch(
        2, {cH2DRing(buf, 4096, n, 4096 + n), cSymbolWrite(g.table, 0, three),
            cLaunch(g.scale, scaleArgs(buf, int(in.size())), 0,
                    {uint32_t(in.size() / 256), 1, 1}, {256, 1, 1}),
            cD2H(buf, n, 0, true, dst.addr, dst.key)}));
    const wire::BatchReply *br = asBatchReply(reply);
    ASSERT_TRUE(br && br->errors()->size() == 0)
        << url << ": " << br->errors()->Get(0)->message()->str();
    EXPECT_TRUE(resultAt(br, 3)->written_remotely()) << url;
    EXPECT_EQ(br->ring_released(), 4096u + n) << url;
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(out[i], 3.0f * in[i]) << url << " element " << i;
    r.conn.reset();
    kill(server.pid, SIGTERM);
    EXPECT_EQ(server.wait(), 0) << server.text;
  }
}

// A setting of the sessions' GPU wait that CUDA has no flag for stops the
// start with a message that names it (settings are read before the driver
// loads, so this runs without a GPU too).
TEST(GpuCli, UnknownGpuWaitSettingFailsStartNamingIt) {
  GpuManifest g = writeGpuManifest();
  setenv("RC_DEV_SERVER_GPU_WAIT", "nap", 1);
  Child server({"--listen", "tcp://127.0.0.1:" + std::to_string(freePort()),
                "--manifest", g.path});
  unsetenv("RC_DEV_SERVER_GPU_WAIT");
  EXPECT_EQ(server.wait(), 2) << server.text;
  EXPECT_NE(server.text.find("RC_DEV_SERVER_GPU_WAIT=nap is not one of spin, "
                             "yield, block"),
            std::string::npos)
      << server.text;
}

// With RC_SERVER_MULTIPATH on a server of two or more GPUs, an upload of
// 24 MiB from the ring to device 0 goes in parts through the others
// (copy_relay.h) and keeps stream order: the kernel before it, which
// writes the destination, ends before any byte lands; the kernel after it
// sees every byte. On two GPUs three rounds take the relay's four buffers
// round more than once.
TEST(GpuCli, MultipathUploadsKeepStreamOrder) {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU server test here";
  GpuManifest g = writeGpuManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  setenv("RC_SERVER_MULTIPATH", "1", 1);
  Child server({"--listen", url, "--manifest", g.path});
  unsetenv("RC_SERVER_MULTIPATH");
  if (!server.waitFor("listening on", 30000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  Remote r;
  std::string err;
  r.conn = rc::transport::connect(url, 5000, &err);
  ASSERT_TRUE(r.conn) << err;
  Bytes reply = r.roundTrip(hello({g.hash}, 1, 32 << 20));
  const wire::HelloReply *hr = asHelloReply(reply);
  ASSERT_TRUE(hr && hr->ok() && hr->upload_ring());
  const size_t gpus = hr->devices()->size();
  if (gpus < 2)
    GTEST_SKIP() << "multipath needs two GPUs";
  // Copied out: `reply` is replaced by the next round trip.
  const rc::transport::RemoteRegion ring{hr->upload_ring()->addr(),
                                         hr->upload_ring()->key()};
  const size_t n = 24 << 20;
  const size_t floats = n / 4;
  const uint32_t blocks = uint32_t(floats / 256);
  reply = r.roundTrip(batch(1, {cMalloc(n)}));
  uint64_t buf = resultAt(asBatchReply(reply), 0)->addr();
  Bytes three(4);
  float f = 3.0f;
  std::memcpy(three.data(), &f, 4);
  reply = r.roundTrip(batch(2, {cSymbolWrite(g.table, 0, three)}));
  ASSERT_TRUE(asBatchReply(reply) &&
              asBatchReply(reply)->errors()->size() == 0);
  std::vector<float> in(floats), out(floats);
  rc::transport::RemoteRegion dst;
  ASSERT_TRUE(r.conn->exposeForWrite(out.data(), n, &dst));
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < floats; ++i)
      in[i] = float((i * 7 + size_t(round) * 1000) % 4096);
    ASSERT_EQ(r.conn->writeRemote(in.data(), n, ring),
              rc::transport::Status::Ok)
        << r.conn->lastError();
    reply = r.roundTrip(batch(3 + uint64_t(round),
                              {cLaunch(g.scale, scaleArgs(buf, int(floats)), 0,
                                       {blocks, 1, 1}, {256, 1, 1}),
                               cH2DRing(buf, 0, n, n),
                               cLaunch(g.scale, scaleArgs(buf, int(floats)), 0,
                                       {blocks, 1, 1}, {256, 1, 1}),
                               cD2H(buf, n, 0, true, dst.addr, dst.key)}));
    const wire::BatchReply *br = asBatchReply(reply);
    ASSERT_TRUE(br && br->errors()->size() == 0)
        << br->errors()->Get(0)->message()->str();
    for (size_t i = 0; i < floats; ++i)
      ASSERT_EQ(out[i], 3.0f * in[i]) << "round " << round << " element " << i;
  }
  r.conn.reset();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  // Every other GPU is a relay (GPUs of one host reach each other).
  EXPECT_EQ(count(server.text, "also go through " + std::to_string(gpus - 1) +
                                   " other GPU(s) (multipath)"),
            1u)
      << server.text;
}

// Read-backs larger than a staging slot go in slot-sized pieces: the GPU
// copies a piece while the previous one is written into the client (RMA)
// or into the reply; both arrive intact, the short tail piece included.
TEST(GpuCli, ReadBackInPiecesArrivesIntact) {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU server test here";
  GpuManifest g = writeGpuManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", g.path});
  if (!server.waitFor("listening on", 30000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  Remote r;
  std::string err;
  r.conn = rc::transport::connect(url, 5000, &err);
  ASSERT_TRUE(r.conn) << err;
  ASSERT_TRUE(asHelloReply(r.roundTrip(hello({g.hash})))->ok());
  const size_t n = (3 << 20) + 12; // 4 pieces, the last a short one
  Bytes data(n);
  for (size_t i = 0; i < n; ++i)
    data[i] = uint8_t(i * 7 + (i >> 9));
  Bytes reply = r.roundTrip(batch(1, {cMalloc(n)}));
  uint64_t buf = resultAt(asBatchReply(reply), 0)->addr();
  Bytes out(n, 0);
  rc::transport::RemoteRegion dst;
  ASSERT_TRUE(r.conn->exposeForWrite(out.data(), n, &dst));
  reply = r.roundTrip(
      batch(2, {cH2D(buf, data), cD2H(buf, n, 0, true, dst.addr, dst.key),
                cD2H(buf + 5, (1 << 20) + 3)}));
  const wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && (!br->errors() || br->errors()->size() == 0))
      << br->errors()->Get(0)->message()->str();
  EXPECT_TRUE(resultAt(br, 1)->written_remotely());
  EXPECT_EQ(out, data) << "RMA read-back";
  const wire::Result *inReply = resultAt(br, 2);
  ASSERT_TRUE(inReply && inReply->payload());
  ASSERT_EQ(inReply->payload()->size(), size_t((1 << 20) + 3));
  EXPECT_TRUE(std::equal(inReply->payload()->begin(), inReply->payload()->end(),
                         data.begin() + 5))
      << "read-back in the reply";
  r.conn.reset();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
}

// Pinned memory shared with a client on the same machine, against the real
// GPU: the server registers the shared pages with CUDA (cuMemHostRegister)
// and the read-back is one DMA into them, which the client sees through its
// own mapping of the file; released, the region is gone.
TEST(GpuCli, SharedHostReadBackIsOneDmaIntoTheClientsPages) {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    GTEST_SKIP() << "no libcuda.so.1: no GPU server test here";
  GpuManifest g = writeGpuManifest();
  std::string url = "shm://rc_gpu_share_" + std::to_string(getpid());
  Child server({"--listen", url, "--manifest", g.path});
  if (!server.waitFor("listening on", 30000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  Remote r;
  std::string err;
  r.conn = rc::transport::connect(url, 5000, &err);
  ASSERT_TRUE(r.conn) << err;
  ASSERT_TRUE(asHelloReply(r.roundTrip(hello({g.hash})))->ok());

  const size_t n = 1 << 20, size = n + 8192;
  Bytes reply = r.roundTrip(batch(1, {cHostShare(size), cMalloc(n)}));
  const wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && (!br->errors() || br->errors()->size() == 0))
      << br->errors()->Get(0)->message()->str();
  const wire::Result *shared = resultAt(br, 0);
  ASSERT_TRUE(shared && shared->payload());
  uint64_t region = shared->addr(), buf = resultAt(br, 1)->addr();
  std::string name(shared->payload()->begin(), shared->payload()->end());
  int fd = shm_open(name.c_str(), O_RDWR, 0);
  ASSERT_GE(fd, 0) << name;
  auto *view = static_cast<float *>(
      mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  close(fd);
  ASSERT_NE(view, MAP_FAILED);
  shm_unlink(name.c_str());

  std::vector<float> in(n / 4);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i % 1000);
  Bytes data(n), three(4);
  std::memcpy(data.data(), in.data(), n);
  float f = 3.0f;
  std::memcpy(three.data(), &f, 4);
  reply = r.roundTrip(
      batch(2, {cH2D(buf, data), cSymbolWrite(g.table, 0, three),
                cLaunch(g.scale, scaleArgs(buf, int(in.size())), 0,
                        {uint32_t(in.size() / 256), 1, 1}, {256, 1, 1}),
                cD2HShared(buf, n, region, 4096)}));
  br = asBatchReply(reply);
  ASSERT_TRUE(br && (!br->errors() || br->errors()->size() == 0))
      << br->errors()->Get(0)->message()->str();
  const wire::Result *back = resultAt(br, 3);
  ASSERT_NE(back, nullptr);
  EXPECT_TRUE(back->written_remotely());
  EXPECT_TRUE(!back->payload() || back->payload()->size() == 0);
  for (size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(view[1024 + i], 3.0f * in[i]) << "element " << i;
  EXPECT_EQ(view[0], 0.0f) << "bytes before the destination were written";

  reply = r.roundTrip(batch(3, {cHostUnshare(region)}));
  br = asBatchReply(reply);
  ASSERT_TRUE(br && (!br->errors() || br->errors()->size() == 0));
  reply = r.roundTrip(batch(4, {cD2HShared(buf, 16, region, 0)}));
  br = asBatchReply(reply);
  ASSERT_TRUE(br && br->errors() && br->errors()->size() == 1);
  EXPECT_NE(
      br->errors()->Get(0)->message()->str().find("no shared host region"),
      std::string::npos);
  munmap(view, size);
  r.conn.reset();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
}

} // namespace
