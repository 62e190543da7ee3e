// The exported C API over an installed runtime: last-error semantics,
// unsupported calls, the no-server path, and stub-pointer launches.
#include "api/global.h"
#include "fake_server.h"
#include "rc/fatbin.h"
#include "rc/kernel_id.h"

#include <gtest/gtest.h>

#include <chrono>
#include <regex>

using namespace rc::test;

extern "C" {
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int,
                            uint3 *, uint3 *, dim3 *, dim3 *, int *);
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t, CUstream_st *);
cudaError_t __cudaPopCallConfiguration(dim3 *, dim3 *, size_t *, void *);
}

namespace {
void fakeStub() {}
} // namespace

// What every generated stub of a refused runtime call returns through
// (runtime/gen_unsupported_stubs.py; the stubs themselves are in
// librc_cudart.so, RuntimeLibs.CallsNotServedYet*).
extern "C" int __rc_runtime_unsupported(const char *call);

TEST(RuntimeApi, UnsupportedCallFailsWithOneMessage) {
  rc::rt::installRuntimeForTest(
      makeRuntime(std::make_shared<FakeState>(), quietOptions(), nullptr));
  testing::internal::CaptureStderr();
  EXPECT_EQ(__rc_runtime_unsupported("cudaIpcGetMemHandle"),
            cudaErrorNotSupported);
  EXPECT_EQ(__rc_runtime_unsupported("cudaIpcGetMemHandle"),
            cudaErrorNotSupported);
  std::string err = testing::internal::GetCapturedStderr();
  const std::string msg = "remote-clang: cudaIpcGetMemHandle is not "
                          "supported by the remote runtime";
  ASSERT_NE(err.find(msg), std::string::npos) << err;
  EXPECT_EQ(err.find(msg), err.rfind(msg)) << "printed more than once";
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorNotSupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "GetLastError resets";
}

TEST(RuntimeApi, NoServerMeansNoDeviceWithOneClearMessage) {
  auto fail = [](int, std::string *error) {
    *error = "RC_SERVER is not set";
    return std::unique_ptr<rc::transport::Connection>();
  };
  rc::rt::installRuntimeForTest(
      std::make_unique<rc::rt::Runtime>(fail, nullptr, quietOptions()));
  int count = 5;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  EXPECT_EQ(count, 0);
  void *p;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorNoDevice);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorNoDevice);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("remote-clang: no GPU server: RC_SERVER is not set"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("set RC_SERVER=tcp://HOST:PORT"), std::string::npos);
  EXPECT_EQ(err.find("remote-clang"), err.rfind("remote-clang"))
      << "printed more than once: " << err;
  EXPECT_STREQ(cudaGetErrorName(cudaErrorNoDevice), "cudaErrorNoDevice");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
}

TEST(RuntimeApi, RefusedHandshakeIsReported) {
  auto state = std::make_shared<FakeState>();
  state->refuse = true;
  rc::rt::installRuntimeForTest(makeRuntime(state, quietOptions(), nullptr));
  int count = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("refused the session: bad token"), std::string::npos)
      << err;
}

// A refusal that says it may pass (HelloReply.retry_after_ms) is tried
// again, from the start, after that long.
TEST(RuntimeApi, ARefusalThatMayPassIsRetried) {
  auto state = std::make_shared<FakeState>();
  state->refusalsWorthRetrying = 3;
  state->retryMs = 20;
  rc::rt::installRuntimeForTest(makeRuntime(state, quietOptions(), nullptr));
  int count = 0;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(state->hellos, 4);
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(60));
}

// ... but only within RC_CONNECT_TIMEOUT_MS: then the last refusal is
// reported, with how often it was tried.
TEST(RuntimeApi, RetriesEndAtTheConnectTimeout) {
  auto state = std::make_shared<FakeState>();
  state->refusalsWorthRetrying = 1000;
  state->retryMs = 300;
  rc::rt::Options o = quietOptions();
  o.connectTimeoutMs = 1000;
  rc::rt::installRuntimeForTest(makeRuntime(state, o, nullptr));
  int count = 0;
  testing::internal::CaptureStderr();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(1500));
  std::string err = testing::internal::GetCapturedStderr();
  // Attempts at 0, 300, 600 and 900 ms fit in the second; a loaded machine
  // may start a later one too late, so the count said must be the count made.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      err, m,
      std::regex("busy for now; retry in 300 ms \\(after ([0-9]+) attempts "
                 "within RC_CONNECT_TIMEOUT_MS\\)")))
      << err;
  EXPECT_EQ(std::stoi(m[1]), state->hellos);
  EXPECT_GE(state->hellos, 2);
  EXPECT_LE(state->hellos, 4);
}

// A reply that passes the flatbuffers Verifier but carries no body is a
// malformed handshake, never a null dereference.
TEST(RuntimeApi, HandshakeReplyWithoutItsBodyIsReported) {
  auto state = std::make_shared<FakeState>();
  state->bodilessHelloReply = true;
  rc::rt::installRuntimeForTest(makeRuntime(state, quietOptions(), nullptr));
  int count = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("malformed handshake reply (malformed message of"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("names a HelloReply body but carries none"),
            std::string::npos)
      << err;
}

// The server answers Hello only after creating the session's context: a slow
// answer within RC_HELLO_TIMEOUT_MS connects, even past RC_CONNECT_TIMEOUT_MS;
// a later one is reported with the limit that ran out.
TEST(RuntimeApi, SlowHandshakeAnswerConnectsWithinTheHelloTimeout) {
  auto state = std::make_shared<FakeState>();
  state->helloDelayMs = 300;
  rc::rt::Options o = quietOptions();
  o.connectTimeoutMs = 100;
  o.helloTimeoutMs = 5000;
  rc::rt::installRuntimeForTest(makeRuntime(state, o, nullptr));
  int count = 0;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
}

// One rule for every RC_* variable (rc/env_reader.h): a bad value is not
// guessed at; the runtime fails every call that needs the device, naming
// the variable, before it connects anywhere.
TEST(RuntimeApi, BadVariablesAreRefusedNamingThem) {
  setenv("RC_DEV_BATCH_AGE_US", "50us", 1);
  setenv("RC_DEV_RMA", "off", 1);
  rc::rt::Options o = rc::rt::Options::fromEnv();
  unsetenv("RC_DEV_BATCH_AGE_US");
  unsetenv("RC_DEV_RMA");
  EXPECT_NE(o.settingsError.find("RC_DEV_BATCH_AGE_US=50us"), std::string::npos)
      << o.settingsError;
  EXPECT_NE(o.settingsError.find("RC_DEV_RMA=off is not 0 (off) or 1 (on)"),
            std::string::npos)
      << o.settingsError;
  auto state = std::make_shared<FakeState>();
  rc::rt::installRuntimeForTest(makeRuntime(state, o, nullptr));
  int count = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  void *p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorNoDevice);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("refusing the environment: RC_DEV_BATCH_AGE_US=50us"),
            std::string::npos)
      << err;
  EXPECT_EQ(state->hellos, 0) << "it connected anyway";
}

TEST(RuntimeApi, HandshakeAnswerAfterTheHelloTimeoutIsReported) {
  auto state = std::make_shared<FakeState>();
  state->helloDelayMs = 1000;
  rc::rt::Options o = quietOptions();
  o.helloTimeoutMs = 100;
  rc::rt::installRuntimeForTest(makeRuntime(state, o, nullptr));
  int count = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("did not answer the handshake within 100 ms"),
            std::string::npos)
      << err;
}

TEST(RuntimeApi, StubPointerLaunchUsesTheRegistrationTable) {
  static const uint8_t fatbin[24] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
                                     8,    0,    0,    0,    0, 0, 0,  0,
                                     9,    9,    9,    9,    9, 9, 9,  9};
  struct {
    int magic, version;
    const void *data;
    void *unused;
  } wrapper = {int(0x466243B1), 1, fatbin, nullptr};
  void **h = __cudaRegisterFatBinary(&wrapper);
  __cudaRegisterFunction(h, reinterpret_cast<const char *>(&fakeStub), nullptr,
                         "_Z4stubi", -1, nullptr, nullptr, nullptr, nullptr,
                         nullptr);
  uint64_t hash = rc::fatbinHash(fatbin, rc::fatbinSize(fatbin));
  auto state = std::make_shared<FakeState>();
  rc::rt::installRuntimeForTest(makeRuntime(
      state, quietOptions(),
      makeManifest(
          hash,
          {{0x5555, "_Z4stubi", "stub(int)", {{0, 4, 4}}, 4, "s.cu", 2}})));
  // What clang's <<<>>> + host stub do.
  ASSERT_EQ(__cudaPushCallConfiguration(dim3(4), dim3(64), 0, nullptr), 0u);
  dim3 g, b;
  size_t shmem;
  cudaStream_t s;
  ASSERT_EQ(__cudaPopCallConfiguration(&g, &b, &shmem, &s), cudaSuccess);
  int arg = 42;
  void *args[] = {&arg};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&fakeStub), g, b,
                             args, shmem, s),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  {
    std::lock_guard<std::mutex> l(state->mu);
    ASSERT_EQ(state->launches.size(), 1u);
    EXPECT_EQ(state->launches[0].id, 0x5555u);
    EXPECT_EQ(state->launches[0].grid[0], 4u);
    EXPECT_EQ(state->launches[0].args, (std::vector<uint8_t>{42, 0, 0, 0}));
  }
  testing::internal::CaptureStderr();
  int notAStub;
  EXPECT_EQ(cudaLaunchKernel(&notAStub, g, b, args, 0, nullptr),
            cudaErrorInvalidDeviceFunction);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("not a registered kernel stub"), std::string::npos);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
}

// A header template kernel (CUB's EmptyKernel) is instantiated in several
// translation units: the merged manifest keeps it under the first module,
// while the stub the linker kept may be registered by another module. With
// external linkage it is the same kernel; a static one is not.
TEST(RuntimeApi, StubOfAKernelSeveralModulesDefineFindsItsOneCopy) {
  static const uint8_t kept[24] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
                                   8,    0,    0,    0,    0, 0, 0,  0,
                                   1,    2,    3,    4,    5, 6, 7,  8};
  static const uint8_t other[24] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
                                    8,    0,    0,    0,    0, 0, 0,  0,
                                    8,    7,    6,    5,    4, 3, 2,  1};
  struct Wrapper {
    int magic, version;
    const void *data;
    void *unused;
  } w1 = {int(0x466243B1), 1, kept, nullptr},
    w2 = {int(0x466243B1), 1, other, nullptr};
  __cudaRegisterFatBinary(&w1); // the module whose copy the manifest kept
  void **h2 = __cudaRegisterFatBinary(&w2);
  static char sharedStub, staticStub;
  __cudaRegisterFunction(h2, &sharedStub, nullptr, "_Z6sharedv", -1, nullptr,
                         nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFunction(h2, &staticStub, nullptr, "_ZL6localv", -1, nullptr,
                         nullptr, nullptr, nullptr, nullptr);
  const uint64_t sharedId = rc::symbolId("_Z6sharedv", false, "");
  const uint64_t staticId = rc::symbolId("_ZL6localv", true, "/kept.cu");
  auto state = std::make_shared<FakeState>();
  rc::rt::installRuntimeForTest(makeRuntime(
      state, quietOptions(),
      makeManifest(rc::fatbinHash(kept, rc::fatbinSize(kept)),
                   {{sharedId, "_Z6sharedv", "shared()", {}, 0, "k.cu", 1},
                    {staticId, "_ZL6localv", "local()", {}, 0, "k.cu", 2}})));
  ASSERT_EQ(
      cudaLaunchKernel(&sharedStub, dim3(1), dim3(1), nullptr, 0, nullptr),
      cudaSuccess);
  testing::internal::CaptureStderr();
  EXPECT_EQ(
      cudaLaunchKernel(&staticStub, dim3(1), dim3(1), nullptr, 0, nullptr),
      cudaErrorInvalidDeviceFunction);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("kernel _ZL6localv"), std::string::npos) << err;
  EXPECT_NE(err.find("is in no loaded manifest"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::lock_guard<std::mutex> l(state->mu);
  ASSERT_EQ(state->launches.size(), 1u);
  EXPECT_EQ(state->launches[0].id, sharedId);
}

TEST(RuntimeApi, VersionsAndStreamCaptureStatus) {
  int v = 0;
  EXPECT_EQ(cudaRuntimeGetVersion(&v), cudaSuccess);
  EXPECT_EQ(v, 12040);
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
  EXPECT_EQ(cudaStreamIsCapturing(nullptr, &st), cudaSuccess);
  EXPECT_EQ(st, cudaStreamCaptureStatusNone);
}

// Code compiled against CUDA 11 or 13 headers calls the unsuffixed name
// with a different struct size: refused, never written.
#undef cudaGetDeviceProperties
extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int);
TEST(RuntimeApi, UnsuffixedDevicePropertiesIsRefused) {
  rc::rt::installRuntimeForTest(
      makeRuntime(std::make_shared<FakeState>(), quietOptions(), nullptr));
  std::vector<unsigned char> canary(sizeof(cudaDeviceProp) + 64, 0xcd);
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGetDeviceProperties(
                reinterpret_cast<cudaDeviceProp *>(canary.data()), 0),
            cudaErrorNotSupported);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("without the _v2 suffix"), std::string::npos) << err;
  EXPECT_EQ(canary, std::vector<unsigned char>(canary.size(), 0xcd));
  cudaDeviceProp p;
  EXPECT_EQ(cudaGetDeviceProperties_v2(&p, 0), cudaSuccess);
  EXPECT_STREQ(p.name, "FakeGPU");
}
