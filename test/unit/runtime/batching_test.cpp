// The batch model against the in-process fake server: what is answered
// locally, what is batched, when batches leave, where errors surface.
#include "fake_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

using namespace rc::test;
using rc::rt::Runtime;

namespace {
constexpr uint64_t kScale = 0x1111;
constexpr uint64_t kBad = 0x2222;

std::shared_ptr<rc::LoadedManifest> testManifest() {
  return makeManifest(
      0x5eed, {{kScale,
                "_Z5scalePfi",
                "scale(float*, int)",
                {{0, 8, 8}, {8, 4, 4}},
                16,
                "vec.cu",
                12},
               {kBad, "_Z3badPi", "bad(int*)", {{0, 8, 8}}, 8, "bad.cu", 40}});
}

cudaError_t launchScale(Runtime &rt, uint64_t id = kScale,
                        cudaStream_t s = nullptr) {
  float *p = reinterpret_cast<float *>(0x1000);
  int n = 4;
  void *args[] = {&p, &n};
  return rt.kernels().launch(id, dim3(2), dim3(128), args, 0, s, false);
}
} // namespace

TEST(RuntimeBatching, LocalQueriesCostNoMessage) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  int count = 0, dev = -1, value = 0;
  ASSERT_EQ(rt->deviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  cudaDeviceProp prop;
  ASSERT_EQ(rt->deviceProperties(&prop, 0), cudaSuccess);
  EXPECT_STREQ(prop.name, "FakeGPU");
  EXPECT_EQ(prop.major, 9);
  EXPECT_EQ(prop.multiProcessorCount, 132);
  EXPECT_EQ(prop.totalGlobalMem, 80ull << 30);
  ASSERT_EQ(rt->deviceAttribute(&value, cudaDevAttrMaxThreadsPerBlock, 0),
            cudaSuccess);
  EXPECT_EQ(value, 1024);
  EXPECT_EQ(rt->deviceProperties(&prop, 1), cudaErrorInvalidDevice);
  ASSERT_EQ(rt->setDevice(0), cudaSuccess);
  ASSERT_EQ(rt->getDevice(&dev), cudaSuccess);
  EXPECT_EQ(dev, 0);
  cudaStream_t s;
  cudaEvent_t e;
  ASSERT_EQ(rt->streams().streamCreate(&s, cudaStreamNonBlocking, 0),
            cudaSuccess);
  ASSERT_EQ(rt->streams().eventCreate(&e, 0), cudaSuccess);
  EXPECT_EQ(state->hellos, 1);
  EXPECT_EQ(rt->messagesSent(), 0u) << "local queries must not send";
  EXPECT_EQ(state->batchCount(), 0u);
}

TEST(RuntimeBatching, AsyncCallsShareOneMessageUntilSync) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess); // round trip 1
  ASSERT_EQ(rt->messagesSent(), 1u);
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(launchScale(*rt), cudaSuccess);
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(rt->memset(buf, i, 4096, nullptr, false), cudaSuccess);
  EXPECT_EQ(rt->messagesSent(), 1u) << "110 async calls sent nothing yet";
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(rt->messagesSent(), 2u);
  std::lock_guard<std::mutex> l(state->mu);
  ASSERT_EQ(state->batchSizes.size(), 2u);
  EXPECT_EQ(state->batchSizes[1], 111u); // 100 + 10 + DeviceSynchronize
  EXPECT_TRUE(state->batchReplyWanted[1]);
  EXPECT_EQ(state->launches.size(), 100u);
}

TEST(RuntimeBatching, TrafficStatsCountWhatWasSentAndWhoWaited) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(launchScale(*rt), cudaSuccess);
  uint8_t in[100] = {};
  ASSERT_EQ(rt->memcpy(buf, in, sizeof in, cudaMemcpyHostToDevice, nullptr,
                       true, false),
            cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  char out[16];
  ASSERT_EQ(rt->memcpy(out, buf, sizeof out, cudaMemcpyDeviceToHost, nullptr,
                       false, false),
            cudaSuccess);
  rc::rt::TrafficStats st = rt->trafficStats();
  EXPECT_EQ(st.launches, 3u);
  EXPECT_EQ(st.roundTrips, 3u);
  EXPECT_EQ(st.roundTrips, rt->roundTrips());
  EXPECT_EQ(st.messages, rt->messagesSent());
  EXPECT_EQ(st.roundTripsByCall["cudaMalloc"], 1u);
  EXPECT_EQ(st.roundTripsByCall["cudaDeviceSynchronize"], 1u);
  EXPECT_EQ(st.roundTripsByCall["cudaMemcpy"], 1u);
  EXPECT_GT(st.bytesUp, 3 * 16u);
  // The application's upload, apart from the protocol around it.
  EXPECT_EQ(st.bytesUpH2dData, sizeof in);
  EXPECT_GT(st.bytesUp, st.bytesUpH2dData + 3 * 16u);
  EXPECT_GE(st.bytesDown, sizeof out) << "the read-back travels down";
  // Client time: every launch call counted and timed, every round trip's
  // wait timed (a clock always moves across a call; no duration asserted).
  EXPECT_EQ(st.launchCalls, 3u);
  EXPECT_GT(st.launchNs, 0u);
  EXPECT_GT(st.replyWaitNs, 0u);
  EXPECT_DOUBLE_EQ(st.commandsPerBatch(),
                   double(st.commands) / double(st.messages));
  EXPECT_DOUBLE_EQ(st.replyWaitNsPerRoundTrip(), st.replyWaitNs / 3.0);
  EXPECT_DOUBLE_EQ(st.launchNsPerCall(), st.launchNs / 3.0);
  std::string json = st.json();
  EXPECT_NE(json.find("\"round_trips\":3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"cudaMalloc\":1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"launch_calls\":3,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"reply_wait_ns\":" + std::to_string(st.replyWaitNs)),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"launch_ns\":" + std::to_string(st.launchNs)),
            std::string::npos)
      << json;
  // One wait and one period per round trip, in order; the first wait has no
  // earlier one to measure a period from.
  ASSERT_EQ(st.waitUs.size(), 3u);
  ASSERT_EQ(st.periodUs.size(), 3u);
  EXPECT_EQ(st.periodUs[0], 0u);
  EXPECT_NE(json.find("\"wait_us\":[" + std::to_string(st.waitUs[0]) + "," +
                      std::to_string(st.waitUs[1]) + "," +
                      std::to_string(st.waitUs[2]) + "]"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"commands_per_batch\":"), std::string::npos) << json;
  EXPECT_EQ(json.back(), '\n');
  EXPECT_EQ(json[json.size() - 2], '}') << "one JSON object: " << json;
  std::string text = st.summary();
  EXPECT_NE(text.find("for replies"), std::string::npos) << text;
  EXPECT_NE(text.find("per launch call (3 calls)"), std::string::npos) << text;
}

TEST(RuntimeBatching, TrafficStatsRatiosWithNothingSentAreZero) {
  rc::rt::TrafficStats st;
  EXPECT_EQ(st.commandsPerBatch(), 0.0);
  EXPECT_EQ(st.replyWaitNsPerRoundTrip(), 0.0);
  EXPECT_EQ(st.launchNsPerCall(), 0.0);
  EXPECT_NE(st.json().find("\"launch_ns_per_call\":0.0,"), std::string::npos)
      << st.json();
  EXPECT_NE(st.json().find("\"wait_us\":[],\"period_us\":[]}"),
            std::string::npos)
      << st.json();
}

TEST(RuntimeBatching, FullBatchLeavesWithoutWaiting) {
  auto state = std::make_shared<FakeState>();
  auto opts = quietOptions();
  opts.maxCommands = 10;
  auto rt = makeRuntime(state, opts, testManifest());
  for (int i = 0; i < 25; ++i)
    ASSERT_EQ(launchScale(*rt), cudaSuccess);
  EXPECT_EQ(rt->messagesSent(), 2u);
  EXPECT_EQ(rt->roundTrips(), 0u);
  std::lock_guard<std::mutex> l(state->mu);
  EXPECT_EQ(state->batchSizes, (std::vector<size_t>{10, 10}));
  EXPECT_FALSE(state->batchReplyWanted[0]);
}

TEST(RuntimeBatching, AgedBatchIsFlushedWithoutSync) {
  auto state = std::make_shared<FakeState>();
  auto opts = quietOptions();
  opts.flusherThread = true;
  opts.batchAgeUs = 2000;
  auto rt = makeRuntime(state, opts, testManifest());
  ASSERT_EQ(launchScale(*rt), cudaSuccess);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (state->batchCount() == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(state->batchCount(), 1u) << "background flusher did not send";
  EXPECT_EQ(rt->roundTrips(), 0u);
  std::lock_guard<std::mutex> l(state->mu);
  EXPECT_EQ(state->launches.size(), 1u);
}

// Uploads alone never wake the flusher (their bytes are in the batch
// already); the launch that follows arms it, and both leave together.
TEST(RuntimeBatching, FlusherWaitsForDeviceWorkNotForUploads) {
  auto state = std::make_shared<FakeState>();
  auto opts = quietOptions();
  opts.flusherThread = true;
  opts.batchAgeUs = 1000;
  auto rt = makeRuntime(state, opts, testManifest());
  void *buf;
  ASSERT_EQ(rt->malloc(&buf, 4096), cudaSuccess);
  size_t before = state->batchCount();
  uint8_t in[100] = {};
  ASSERT_EQ(rt->memcpy(buf, in, sizeof in, cudaMemcpyHostToDevice, nullptr,
                       true, false),
            cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(state->batchCount(), before) << "an upload alone was flushed";
  ASSERT_EQ(launchScale(*rt), cudaSuccess);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (state->batchCount() == before &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(state->batchCount(), before + 1) << "the launch was not flushed";
  EXPECT_EQ(rt->roundTrips(), 1u); // the malloc's
  std::lock_guard<std::mutex> l(state->mu);
  EXPECT_EQ(state->batchSizes.back(), 2u) << "upload and launch together";
}

TEST(RuntimeBatching, ServerErrorSurfacesAtNextSyncNamingKernel) {
  auto state = std::make_shared<FakeState>();
  state->failKernel = kBad;
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  int *p = nullptr;
  void *args[] = {&p};
  testing::internal::CaptureStderr();
  ASSERT_EQ(
      rt->kernels().launch(kBad, dim3(1), dim3(1), args, 0, nullptr, false),
      cudaSuccess)
      << "a launch is async: its failure is not known at the call";
  EXPECT_EQ(rt->deviceSynchronize(), cudaErrorIllegalAddress);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("bad(int*)"), std::string::npos) << err;
  EXPECT_NE(err.find("bad.cu:40"), std::string::npos) << err;
  EXPECT_NE(err.find("illegal memory access"), std::string::npos) << err;
  // Reported once: the next sync is clean.
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

TEST(RuntimeBatching, UnsolicitedErrorIsKeptForTheNextSync) {
  auto state = std::make_shared<FakeState>();
  state->failKernel = kBad;
  auto opts = quietOptions();
  opts.maxCommands = 1; // every launch leaves alone, without reply_wanted
  auto rt = makeRuntime(state, opts, testManifest());
  int *p = nullptr;
  void *args[] = {&p};
  testing::internal::CaptureStderr();
  ASSERT_EQ(
      rt->kernels().launch(kBad, dim3(1), dim3(1), args, 0, nullptr, false),
      cudaSuccess);
  void *buf;
  // A non-sync round trip does not steal the launch's error...
  EXPECT_EQ(rt->malloc(&buf, 64), cudaSuccess);
  // ... the next sync returns it.
  EXPECT_EQ(rt->streams().streamSynchronize(nullptr, false),
            cudaErrorIllegalAddress);
  testing::internal::GetCapturedStderr();
}

// An error code the server sends is a number, not yet a cudaError_t: one
// that CUDA does not define reads as cudaErrorUnknown (holding it in the
// enum would be undefined behaviour).
TEST(RuntimeBatching, ServerErrorCodeOutsideCudaErrorIsUnknown) {
  auto state = std::make_shared<FakeState>();
  state->failKernel = kBad;
  state->failCode = 0x7fff0000;
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  int *p = nullptr;
  void *args[] = {&p};
  testing::internal::CaptureStderr();
  ASSERT_EQ(
      rt->kernels().launch(kBad, dim3(1), dim3(1), args, 0, nullptr, false),
      cudaSuccess);
  EXPECT_EQ(rt->deviceSynchronize(), cudaErrorUnknown);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("(cudaErrorUnknown)"), std::string::npos) << err;
}

// A batch reply without its body loses the connection with a message, never
// a null dereference.
TEST(RuntimeBatching, BatchReplyWithoutItsBodyLosesTheConnection) {
  auto state = std::make_shared<FakeState>();
  state->bodilessBatchReply = true;
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  void *buf = nullptr;
  testing::internal::CaptureStderr();
  EXPECT_NE(rt->malloc(&buf, 64), cudaSuccess);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("names a BatchReply body but carries none"),
            std::string::npos)
      << err;
}

TEST(RuntimeBatching, ArgumentsPackedPerManifestLayout) {
  // kernel(char c, Aligned16 s /*32 bytes at 16*/, float *p /*at 48*/)
  constexpr uint64_t kId = 0x3333;
  auto m = makeManifest(0x5eed, {{kId,
                                  "_Z1kc9Aligned16Pf",
                                  "k",
                                  {{0, 1, 1}, {16, 32, 16}, {48, 8, 8}},
                                  56,
                                  "k.cu",
                                  1}});
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), std::move(m));
  struct alignas(16) Aligned16 {
    float *ptr;
    int v[6];
  } s;
  s.ptr = reinterpret_cast<float *>(0xdeadbeef00ull);
  for (int i = 0; i < 6; ++i)
    s.v[i] = 100 + i;
  char c = 'x';
  float *p = reinterpret_cast<float *>(0x123456789aull);
  void *args[] = {&c, &s, &p};
  ASSERT_EQ(rt->kernels().launch(kId, dim3(3, 2, 1), dim3(32, 4, 1), args, 128,
                                 nullptr, false),
            cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  std::lock_guard<std::mutex> l(state->mu);
  ASSERT_EQ(state->launches.size(), 1u);
  const RecordedLaunch &got = state->launches[0];
  std::vector<uint8_t> want(56, 0);
  want[0] = 'x';
  std::memcpy(want.data() + 16, &s, 32);
  std::memcpy(want.data() + 48, &p, 8);
  EXPECT_EQ(got.args, want);
  EXPECT_EQ(got.grid[0], 3u);
  EXPECT_EQ(got.grid[1], 2u);
  EXPECT_EQ(got.block[1], 4u);
  EXPECT_EQ(got.shmem, 128u);
}

TEST(RuntimeBatching, UnknownKernelFailsAtTheCall) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  testing::internal::CaptureStderr();
  EXPECT_EQ(launchScale(*rt, 0xdead), cudaErrorInvalidDeviceFunction);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("0x000000000000dead"), std::string::npos) << err;
  EXPECT_EQ(rt->messagesSent(), 0u);
}

TEST(RuntimeBatching, BadLaunchConfigurationFailsAtTheCall) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  float *p = nullptr;
  int n = 0;
  void *args[] = {&p, &n};
  EXPECT_EQ(rt->kernels().launch(kScale, dim3(1), dim3(2048), args, 0, nullptr,
                                 false),
            cudaErrorInvalidConfiguration);
  EXPECT_EQ(
      rt->kernels().launch(kScale, dim3(0), dim3(32), args, 0, nullptr, false),
      cudaErrorInvalidConfiguration);
  EXPECT_EQ(rt->kernels().launch(kScale, dim3(1), dim3(32), args, 0,
                                 reinterpret_cast<cudaStream_t>(0x77), false),
            cudaErrorInvalidResourceHandle);
}

TEST(RuntimeBatching, LaunchExHonoursConfigAndRefusesByName) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), testManifest());
  float *p = nullptr;
  int n = 0;
  void *args[] = {&p, &n};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(5);
  cfg.blockDim = dim3(64);
  cfg.dynamicSmemBytes = 256;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  EXPECT_EQ(rt->kernels().launchEx(&cfg, kScale, args, false), cudaSuccess);
  // Thread-block clusters have no wire field: refused by name.
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt->kernels().launchEx(&cfg, kScale, args, false),
            cudaErrorNotSupported);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cudaLaunchAttributeClusterDimension is not supported"),
            std::string::npos)
      << err;
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  std::lock_guard<std::mutex> l(state->mu);
  ASSERT_EQ(state->launches.size(), 1u);
  EXPECT_EQ(state->launches[0].grid[0], 5u);
  EXPECT_EQ(state->launches[0].shmem, 256u);
}

TEST(RuntimeBatching, ConcurrentThreadsShareOneConnection) {
  auto state = std::make_shared<FakeState>();
  auto opts = quietOptions();
  opts.flusherThread = true;
  opts.batchAgeUs = 100;
  opts.maxCommands = 64;
  auto rt = makeRuntime(state, opts, testManifest());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        EXPECT_EQ(launchScale(*rt, kScale, cudaStreamPerThread), cudaSuccess);
      EXPECT_EQ(rt->streams().streamSynchronize(cudaStreamPerThread, false),
                cudaSuccess);
    });
  for (auto &t : threads)
    t.join();
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  std::lock_guard<std::mutex> l(state->mu);
  EXPECT_EQ(state->launches.size(), 800u);
  std::set<uint64_t> streams;
  for (const RecordedLaunch &r : state->launches)
    streams.insert(r.stream);
  EXPECT_EQ(streams.size(), 4u) << "one per-thread stream per thread";
}
