// The CUDA backend on a real GPU, in process (no transport): a real fatbin
// from gpu_kernels.cu in an in-test manifest, sessions over in-memory
// connections. Skipped where libcuda.so.1 or a GPU is missing.
#include "gpu_server_fixture.h"
#include "rc/fatbin.h"
#include "rc/kernel_id.h"
#include "rc/manifest_file.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

using namespace rc;
using namespace rc::server;
using namespace rc::server::test;

namespace {

namespace fb = flatbuffers;
namespace mf = rc::manifest;

using Client = MemClient;

// Logs at Info: the server's summary and warnings belong in the output.
class GpuTest : public GpuServerTest {
protected:
  void SetUp() override {
    GpuServerTest::SetUp();
    setLogLevel(LogLevel::Info);
    if (!IsSkipped() && !HasFatalFailure())
      std::printf("rc-server: %s\n", core.summary().c_str());
  }
};

TEST_F(GpuTest, HelloDescribesTheGpu) {
  Bytes r;
  Client c = connect(&r);
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok());
  const wire::DeviceInfo *d = hr->devices()->Get(0);
  std::printf("device: %s, %llu bytes, cc %d.%d, %d SMs\n", d->name()->c_str(),
              (unsigned long long)d->total_mem(), d->attributes()->Get(75),
              d->attributes()->Get(76), d->attributes()->Get(16));
  EXPECT_EQ(d->backend()->str(), "cuda");
  EXPECT_GT(d->total_mem(), 1ULL << 30);
  EXPECT_EQ(d->attributes()->Get(10), 32); // warp size
}

TEST_F(GpuTest, KernelsRunWithPointersValuesAggregatesAndConstants) {
  Client c = connect();
  const int n = 1000;
  std::vector<float> in(1024);
  for (int i = 0; i < 1024; ++i)
    in[i] = float(i);
  Bytes r = c.roundTrip(batch(1, {cMalloc(4096)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  ASSERT_NE(buf, 0u);
  float factor[1] = {2.5f};
  Bytes fb(4);
  std::memcpy(fb.data(), factor, 4);
  r = c.roundTrip(
      batch(2, {cH2D(buf, floats(in)), cSymbolWrite(g.table, 0, fb),
                cLaunch(g.scale, scaleArgs(buf, n), 0, {4, 1, 1}, {256, 1, 1}),
                cD2H(buf, 4096)}));
  const wire::BatchReply *br = ok(r);
  ASSERT_NE(resultAt(br, 3), nullptr);
  const uint8_t *p = resultAt(br, 3)->payload()->data();
  std::vector<float> out(1024);
  std::memcpy(out.data(), p, 4096);
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(out[i], i < n ? float(i) * 2.5f : float(i)) << i;

  // Aggregate with a pointer at offset 8; 32 threads each write tag.
  r = c.roundTrip(batch(3, {cLaunch(g.consume, consumeArgs(7, buf + 64), 0,
                                    {1, 1, 1}, {32, 1, 1}),
                            cD2H(buf + 64, 128), cSymbolRead(g.table, 0, 4)}));
  br = ok(r);
  std::memcpy(out.data(), resultAt(br, 1)->payload()->data(), 128);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(out[i], 7.0f);
  float back;
  std::memcpy(&back, resultAt(br, 2)->payload()->data(), 4);
  EXPECT_EQ(back, 2.5f);
}

TEST_F(GpuTest, StreamsEventsAndQueries) {
  Client c = connect();
  Bytes r = c.roundTrip(batch(1, {cMalloc(1 << 20), cStreamCreate(10),
                                  cEventCreate(20), cEventCreate(21)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  Bytes spinArgs(8);
  long long cycles = 200000000; // ~0.1 s at 1.98 GHz
  std::memcpy(spinArgs.data(), &cycles, 8);
  r = c.roundTrip(
      batch(2, {cEventRecord(20, 10),
                cLaunch(g.spin, spinArgs, 10, {1, 1, 1}, {1, 1, 1}),
                cEventRecord(21, 10), cStreamQuery(10), cEventQuery(21)}));
  const wire::BatchReply *br = ok(r);
  EXPECT_EQ(resultAt(br, 3)->code(), 600); // cudaErrorNotReady
  EXPECT_EQ(resultAt(br, 4)->code(), 600);
  r = c.roundTrip(
      batch(3, {cStreamWaitEvent(0, 21), cMemset(buf, 1, 1 << 20, 10),
                cStreamSync(10), cEventElapsed(20, 21), cStreamQuery(10),
                cD2H(buf + 1000, 4, 10), cStreamDestroy(10), cDeviceSync()}));
  br = ok(r);
  double ms = resultAt(br, 3)->value();
  std::printf("spin kernel: %.2f ms by events\n", ms);
  EXPECT_GT(ms, 10.0);
  EXPECT_EQ(resultAt(br, 4)->code(), 0);
  EXPECT_EQ(resultAt(br, 5)->payload()->Get(0), 1);
}

// cudaDeviceSetLimit / GetLimit act on the session's own context: what one
// session sets, it reads back (the driver may round it up), another session
// keeps CUDA's default, and a number the driver refuses comes back as its
// error, naming the call.
TEST_F(GpuTest, DeviceLimitsAreTheContexts) {
  Client a = connect(), b = connect();
  const int stack = 0, heap = 2; // cudaLimitStackSize, MallocHeapSize
  Bytes r = a.roundTrip(batch(1, {cDeviceLimit(heap, 0, false),
                                  cDeviceLimit(heap, 64 << 20, true),
                                  cDeviceLimit(stack, 4096, true)}));
  const wire::BatchReply *br = ok(r);
  uint64_t defaultHeap = resultAt(br, 0)->addr();
  std::printf("default malloc heap %llu bytes\n",
              (unsigned long long)defaultHeap);
  EXPECT_GT(defaultHeap, 0u);
  EXPECT_GE(resultAt(br, 1)->addr(), uint64_t(64) << 20);
  EXPECT_GE(resultAt(br, 2)->addr(), 4096u);
  r = b.roundTrip(batch(1, {cDeviceLimit(heap, 0, false)}));
  EXPECT_EQ(resultAt(ok(r), 0)->addr(), defaultHeap) << "another context";
  r = a.roundTrip(batch(2, {cDeviceLimit(99, 1, true)}));
  const wire::BatchReply *bad = asBatchReply(r);
  ASSERT_TRUE(bad && bad->errors() && bad->errors()->size() == 1);
  // No such limit: the driver says CUDA_ERROR_INVALID_VALUE.
  EXPECT_EQ(bad->errors()->Get(0)->code(), 1);
  EXPECT_NE(bad->errors()->Get(0)->message()->str().find("cudaDeviceSetLimit"),
            std::string::npos)
      << bad->errors()->Get(0)->message()->str();
}

// A deferred stream sync orders later work on another stream on the GPU
// (sync_tracker.cpp): stream 11's memset, issued after the client synced
// stream 10, lands after stream 10's slow kernel and memset, although the
// server never waits on the host before issuing it. Then the same with the
// streams swapped and an upload, as llama.cpp's inputs alternate.
TEST_F(GpuTest, WorkAfterASyncOnAnotherStreamRunsAfterTheSyncedWork) {
  Client c = connect();
  Bytes r = c.roundTrip(
      batch(1, {cMalloc(4096), cStreamCreate(10), cStreamCreate(11)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  Bytes spinArgs(8);
  long long cycles = 100000000; // ~50 ms at 1.98 GHz
  std::memcpy(spinArgs.data(), &cycles, 8);
  Cmd spin = cLaunch(g.spin, spinArgs, 10, {1, 1, 1}, {1, 1, 1});
  Bytes noReply = batch(2,
                        {spin, cMemset(buf, 7, 4096, 10), cStreamSync(10),
                         cMemset(buf, 9, 2048, 11), cStreamSync(11)},
                        false);
  ASSERT_EQ(c.conn->send(noReply.data(), noReply.size()),
            rc::transport::Status::Ok);
  Cmd spin11 = cLaunch(g.spin, spinArgs, 11, {1, 1, 1}, {1, 1, 1});
  r = c.roundTrip(batch(3, {spin11, cMemset(buf + 2048, 5, 2048, 11),
                            cStreamSync(11), cH2D(buf + 4000, Bytes(96, 3), 10),
                            cStreamSync(10), cD2H(buf, 4096, 10)}));
  const wire::BatchReply *br = ok(r);
  ASSERT_NE(resultAt(br, 5), nullptr);
  const auto *bytes = resultAt(br, 5)->payload();
  ASSERT_EQ(bytes->size(), 4096u);
  EXPECT_EQ(bytes->Get(0), 9); // stream 11 after stream 10's memset
  EXPECT_EQ(bytes->Get(2047), 9);
  EXPECT_EQ(bytes->Get(2048), 5); // stream 11's own work, after its spin
  EXPECT_EQ(bytes->Get(3999), 5);
  EXPECT_EQ(bytes->Get(4000), 3); // stream 10's upload after stream 11's
  EXPECT_EQ(bytes->Get(4095), 3);
}

// Small uploads share pinned staging slots (CudaContext::packUpload): many of
// them, on three streams, past the end of every slot several times, with a
// large (unpacked) upload among them and a stream destroyed right after its
// uploads, all arrive intact.
TEST_F(GpuTest, SmallUploadsPackedIntoStagingArriveIntact) {
  Client c = connect();
  const uint64_t total = 8 << 20;
  Bytes r = c.roundTrip(batch(1, {cMalloc(total), cStreamCreate(10),
                                  cStreamCreate(11), cStreamCreate(12)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  Bytes expected(total, 0);
  std::vector<Cmd> cmds;
  uint64_t at = 0;
  auto upload = [&](uint64_t size, uint64_t stream, uint8_t seed) {
    Bytes data(size);
    for (uint64_t i = 0; i < size; ++i)
      data[i] = uint8_t(seed * 31 + i * 7);
    std::memcpy(expected.data() + at, data.data(), size);
    cmds.push_back(cH2D(buf + at, data, stream));
    at += size;
  };
  const uint64_t streams[] = {10, 11, 0};
  for (int i = 0; i < 300; ++i) {
    upload(1 + (uint64_t(i) * 7919) % 30000, streams[(i / 25) % 3], uint8_t(i));
    if (i == 150)
      upload(300 << 10, 10, 0xAB); // over the packing limit: its own slots
  }
  // Stream 12's uploads are still being packed when it is destroyed.
  for (int i = 0; i < 3; ++i)
    upload(1000 + i, 12, uint8_t(200 + i));
  cmds.push_back(cStreamDestroy(12));
  cmds.push_back(cDeviceSync());
  ASSERT_LT(at, total);
  ASSERT_GT(at, uint64_t(4 << 20)); // every slot reused more than once
  ok(c.roundTrip(batch(2, cmds)));
  r = c.roundTrip(batch(3, {cD2H(buf, at)}));
  const wire::BatchReply *br = ok(r);
  ASSERT_EQ(resultAt(br, 0)->payload()->size(), at);
  EXPECT_EQ(
      std::memcmp(resultAt(br, 0)->payload()->data(), expected.data(), at), 0);
}

TEST_F(GpuTest, DisconnectFreesDeviceMemory) {
  {
    Client c = connect();
    c.roundTrip(batch(1, {cMalloc(64 << 20), cMalloc(1 << 20)}));
    EXPECT_GE(core.bytesInUse(), uint64_t(65 << 20));
  }
  for (int i = 0; i < 500 && core.liveSessions(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(core.bytesInUse(), 0u);
}

// Batches of many small launches, the way a decode step sends them: each of
// 100 launches doubles every element, so 2^100 (exact in a float) proves
// that every launch of every batch ran, in order. (The replay's share of a
// decode token is measured by bench/profile-decode.sh, not here.)
TEST_F(GpuTest, EveryLaunchOfLargeBatchesRuns) {
  Client c = connect();
  const wire::BatchReply *br = nullptr;
  Bytes r = c.roundTrip(batch(1, {cMalloc(4096)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  Bytes two(4);
  const float factor = 2.0f;
  std::memcpy(two.data(), &factor, 4);
  const std::vector<float> ones(1024, 1.0f);
  const int launches = 100;
  for (int round = 0; round < 10; ++round) {
    std::vector<Cmd> cmds{cH2D(buf, floats(ones)),
                          cSymbolWrite(g.table, 0, two)};
    for (int i = 0; i < launches; ++i)
      cmds.push_back(
          cLaunch(g.scale, scaleArgs(buf, 1024), 0, {4, 1, 1}, {256, 1, 1}));
    cmds.push_back(cD2H(buf, 4096));
    r = c.roundTrip(batch(uint64_t(2 + round), cmds));
    br = ok(r);
    const wire::Result *res = resultAt(br, cmds.size() - 1);
    ASSERT_NE(res, nullptr);
    ASSERT_EQ(res->payload()->size(), 4096u);
    std::vector<float> out(1024);
    std::memcpy(out.data(), res->payload()->data(), 4096);
    for (int i = 0; i < 1024; ++i)
      ASSERT_EQ(out[i], std::ldexp(1.0f, launches))
          << "round " << round << ", element " << i;
  }
}

// Several GPUs (rc-server exposes every visible one): each device has its
// own memory and copy of the module's globals; a peer copy moves bytes from
// device 0 to device 1 and, with peer access, a kernel on device 1 writes
// device 0's memory. Skipped with fewer than two GPUs.
TEST_F(GpuTest, SecondGpuHasItsOwnGlobalsAndReachesTheFirstAsAPeer) {
  Bytes r;
  Client c = connect(&r);
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok());
  if (hr->devices()->size() < 2)
    GTEST_SKIP() << "one GPU here; this test needs two";
  ASSERT_NE(hr->devices()->Get(0)->can_access_peer(), nullptr);
  ASSERT_NE(hr->devices()->Get(1)->can_access_peer(), nullptr);
  // `hr` points into `r`, which the next round trip replaces.
  const bool peer10 = hr->devices()->Get(1)->can_access_peer()->Get(0) != 0;
  std::printf("%u devices; device 1 can access device 0: %d\n",
              hr->devices()->size(), int(peer10));
  std::vector<float> in(1024);
  for (int i = 0; i < 1024; ++i)
    in[i] = float(i);
  auto factor = [](float f) {
    Bytes b(4);
    std::memcpy(b.data(), &f, 4);
    return b;
  };
  std::fflush(stdout); // a crash below would lose buffered output
  r = c.roundTrip(batch(1, {cMalloc(4096)}));
  const wire::Result *ra = resultAt(ok(r), 0);
  ASSERT_NE(ra, nullptr);
  uint64_t a = ra->addr();
  r = c.roundTrip(batch(2, {cSetDevice(1), cMalloc(4096)}));
  const wire::Result *rb = resultAt(ok(r), 1);
  ASSERT_NE(rb, nullptr);
  uint64_t b = rb->addr();
  ASSERT_TRUE(a && b);
  r = c.roundTrip(batch(
      3,
      {cSetDevice(0), cH2D(a, floats(in)), cSymbolWrite(g.table, 0, factor(2)),
       cLaunch(g.scale, scaleArgs(a, 1024), 0, {4, 1, 1}, {256, 1, 1}),
       cDeviceSync(), cSetDevice(1), cSymbolWrite(g.table, 0, factor(3)),
       cD2D(b, a, 4096), // device 0 -> device 1
       cLaunch(g.scale, scaleArgs(b, 1024), 0, {4, 1, 1}, {256, 1, 1}),
       cD2H(b, 4096)}));
  const wire::BatchReply *br = ok(r);
  ASSERT_NE(resultAt(br, 9), nullptr);
  std::vector<float> out(1024);
  std::memcpy(out.data(), resultAt(br, 9)->payload()->data(), 4096);
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(out[i], float(i) * 6.0f) << i;
  if (!peer10)
    return;
  // Device 1's kernel writes device 0's memory through peer access.
  r = c.roundTrip(
      batch(4, {cPeerAccess(0, true),
                cLaunch(g.consume, consumeArgs(9, a), 0, {1, 1, 1}, {32, 1, 1}),
                cDeviceSync(), cSetDevice(0), cD2H(a, 128)}));
  br = ok(r);
  ASSERT_NE(resultAt(br, 4), nullptr);
  std::memcpy(out.data(), resultAt(br, 4)->payload()->data(), 128);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(out[i], 9.0f) << i;
}

// Refused when the manifest is loaded, before the GPU is touched: its
// cubins do not have the kernel (manifest/include/rc/manifest_check.h).
// Device printf: what two sessions' kernels print at the same time comes
// back to each in its own replies (never the other's, never rc-server's
// stdout), all of it, in the order the driver wrote it.
TEST_F(GpuTest, DevicePrintfComesBackToTheSessionThatPrinted) {
  auto say = [&](Client &c, uint64_t seq, int tag) {
    Bytes args(4);
    std::memcpy(args.data(), &tag, 4);
    Bytes r = c.roundTrip(batch(
        seq, {cLaunch(g.say, args, 0, {2, 1, 1}, {4, 1, 1}), cDeviceSync()}));
    const wire::BatchReply *br = ok(r);
    return br && br->device_output() ? br->device_output()->str()
                                     : std::string();
  };
  std::string printed[2];
  std::thread sessions[2];
  for (int s = 0; s < 2; ++s)
    sessions[s] = std::thread([&, s] {
      Client c = connect();
      for (int i = 0; i < 20; ++i)
        printed[s] += say(c, uint64_t(i + 1), 100 * (s + 1) + i);
    });
  for (std::thread &t : sessions)
    t.join();
  for (int s = 0; s < 2; ++s) {
    // 20 launches of 2 blocks x 4 threads: 160 lines, each tag 8 times.
    EXPECT_EQ(std::count(printed[s].begin(), printed[s].end(), '\n'), 160)
        << printed[s];
    for (int i = 0; i < 20; ++i) {
      std::string tag = "say " + std::to_string(100 * (s + 1) + i) + " ";
      size_t n = 0;
      for (size_t at = printed[s].find(tag); at != std::string::npos;
           at = printed[s].find(tag, at + 1))
        ++n;
      EXPECT_EQ(n, 8u) << tag;
    }
    std::string other = "say " + std::to_string(100 * (2 - s)) + " ";
    EXPECT_EQ(printed[s].find(other), std::string::npos);
  }
  std::printf("first session's first lines:\n%s",
              printed[0].substr(0, printed[0].find("say 101")).c_str());
}

// A program that exits right after a launch still gets what the kernel
// printed: CUDA writes it at context teardown; rc-server synchronizes the
// session's contexts at Goodbye, so it rides in the Goodbye's reply.
TEST_F(GpuTest, DevicePrintfOfWorkNeverSynchronizedComesWithTheGoodbye) {
  Client c = connect();
  int tag = 4242;
  Bytes args(4);
  std::memcpy(args.data(), &tag, 4);
  Bytes r = c.roundTrip(
      batch(1, {cLaunch(g.say, args, 0, {3, 1, 1}, {2, 1, 1}), cGoodbye()}));
  const wire::BatchReply *br = ok(r);
  ASSERT_NE(br, nullptr);
  std::string printed =
      br->device_output() ? br->device_output()->str() : std::string();
  // 3 blocks x 2 threads, each one line.
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 6) << printed;
  EXPECT_NE(printed.find("say 4242 from block 2 thread 1"), std::string::npos)
      << printed;
}

// A kernel the host registers that no cubin defines (device code compiled
// out): the CUDA backend starts without resolving it, the other kernels
// run, and its launch fails naming it, as nvcc's programs do.
TEST(GpuStartup, KernelMissingFromTheFatbinFailsOnlyItsLaunch) {
  GpuManifest g = writeGpuManifest("_Z7missingv");
  ServerCore core;
  ServerOptions o;
  o.manifests = {g.path};
  std::string err;
  if (!core.start(o, &err)) {
    if (noUsableGpu(err))
      GTEST_SKIP() << "no usable GPU here: " << err;
    FAIL() << err;
  }
  auto ends = memPair();
  core.serve(std::move(ends.second));
  MemClient c{std::move(ends.first), 30000};
  Bytes r = c.roundTrip(hello({g.hash}));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok());
  uint64_t missing = rc::symbolId("_Z7missingv", false, "");
  int tag = 5;
  Bytes args(4);
  std::memcpy(args.data(), &tag, 4);
  r = c.roundTrip(batch(1, {cLaunch(missing, {}, 0, {1, 1, 1}, {1, 1, 1}),
                            cLaunch(g.say, args, 0, {1, 1, 1}, {1, 1, 1})}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  ASSERT_TRUE(br->errors() && br->errors()->size() >= 1);
  EXPECT_EQ(br->errors()->Get(0)->index(), 0u);
  EXPECT_EQ(br->errors()->Get(0)->code(), 98); // cudaErrorInvalidDeviceFunction
  EXPECT_NE(br->errors()->Get(0)->message()->str().find("has no device code"),
            std::string::npos);
  r = c.roundTrip(batch(2, {cLaunch(g.say, args, 0, {1, 1, 1}, {1, 1, 1})}));
  br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  EXPECT_TRUE(!br->errors() || br->errors()->size() == 0);
}

// Must stay the last test of the file: after it, CUDA refuses every context
// in this process (ctest runs each test in its own process anyway).
TEST_F(GpuTest, ZzIllegalAddressIsStickyAndPoisonsTheProcess) {
  Client bad = connect(), other = connect();
  Bytes r = bad.roundTrip(batch(1, {cMalloc(256)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  EXPECT_FALSE(core.deviceLost());
  // The pointer is valid; the kernel runs far past the allocation's end.
  r = bad.roundTrip(batch(2, {cLaunch(g.scale, scaleArgs(buf, 1 << 30), 0,
                                      {1 << 20, 1, 1}, {1024, 1, 1}),
                              cDeviceSync()}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_TRUE(br && br->errors()->size() == 1);
  const wire::Error *e = br->errors()->Get(0);
  std::printf("error: %d %s\n", e->code(), e->message()->c_str());
  EXPECT_EQ(e->index(), 1u);
  EXPECT_EQ(e->code(), 700);
  EXPECT_NE(e->message()->str().find("cudaDeviceSynchronize"),
            std::string::npos);
  EXPECT_NE(e->message()->str().find("scale(float*, int)"), std::string::npos);
  // Every later batch of that session reports it.
  r = bad.roundTrip(batch(3, {cMalloc(16)}));
  br = asBatchReply(r);
  ASSERT_TRUE(br && br->errors()->size() == 1);
  EXPECT_EQ(br->errors()->Get(0)->code(), 700);
  EXPECT_EQ(br->errors()->Get(0)->index(), 0u);
  // CUDA poisons the whole process: the server knows it must restart...
  EXPECT_TRUE(core.deviceLost());
  EXPECT_NE(core.deviceLostReason().find("scale(float*, int)"),
            std::string::npos);
  // ...the other live session fails too (observed, not wanted)...
  r = other.roundTrip(batch(2, {cMalloc(256), cDeviceSync()}));
  br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  std::printf("other live session after the fault: %s\n",
              br->errors()->size() ? br->errors()->Get(0)->message()->c_str()
                                   : "works");
  // ...and a new client is told why instead of getting a broken context.
  auto ends = memPair();
  core.serve(std::move(ends.second));
  Client fresh{std::move(ends.first)};
  r = fresh.roundTrip(hello({g.hash}));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_NE(hr, nullptr);
  EXPECT_FALSE(hr->ok());
  EXPECT_NE(hr->error()->str().find("restarting"), std::string::npos)
      << hr->error()->str();
}

} // namespace
