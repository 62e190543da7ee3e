// Copies, memsets, streams, events and symbols against the fake server.
#include "fake_server.h"

#include <gtest/gtest.h>

#include "rc/fatbin.h"

#include <numeric>

using namespace rc::test;

extern "C" void **__cudaRegisterFatBinary(void *fatCubin);
extern "C" void __cudaRegisterVar(void **handle, char *hostVar, char *,
                                  const char *deviceName, int, size_t, int,
                                  int);

TEST(RuntimeMemory, CopiesInEveryDirection) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), nullptr);
  std::vector<int> host(1000), back(1000, -1), other(1000, -1);
  std::iota(host.begin(), host.end(), 7);
  void *a, *b;
  ASSERT_EQ(rt->malloc(&a, 4000), cudaSuccess);
  ASSERT_EQ(rt->malloc(&b, 4000), cudaSuccess);
  ASSERT_EQ(rt->memcpy(a, host.data(), 4000, cudaMemcpyHostToDevice, nullptr,
                       false, false),
            cudaSuccess);
  ASSERT_EQ(
      rt->memcpy(b, a, 4000, cudaMemcpyDeviceToDevice, nullptr, false, false),
      cudaSuccess);
  ASSERT_EQ(rt->memcpy(back.data(), b, 4000, cudaMemcpyDeviceToHost, nullptr,
                       false, false),
            cudaSuccess);
  EXPECT_EQ(back, host);
  // cudaMemcpyDefault resolves through the allocation table.
  ASSERT_EQ(rt->memcpy(other.data(), a, 4000, cudaMemcpyDefault, nullptr, false,
                       false),
            cudaSuccess);
  EXPECT_EQ(other, host);
  std::vector<int> h2h(1000);
  ASSERT_EQ(rt->memcpy(h2h.data(), host.data(), 4000, cudaMemcpyDefault,
                       nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(h2h, host);
  EXPECT_EQ(
      rt->memcpy(nullptr, a, 4, cudaMemcpyDeviceToHost, nullptr, false, false),
      cudaErrorInvalidValue);
  // 7: no direction, yet a value the enum can hold (42 would be undefined
  // behaviour in the test itself, which UBSan reports).
  EXPECT_EQ(
      rt->memcpy(back.data(), a, 4, cudaMemcpyKind(7), nullptr, false, false),
      cudaErrorInvalidMemcpyDirection);
}

TEST(RuntimeMemory, LargeCopiesAreChunked) {
  auto state = std::make_shared<FakeState>();
  auto opts = quietOptions();
  opts.chunkBytes = 1 << 20;
  auto rt = makeRuntime(state, opts, nullptr);
  size_t n = (3 << 20) + 123;
  std::vector<uint8_t> host(n), back(n);
  for (size_t i = 0; i < n; ++i)
    host[i] = uint8_t(i * 31 + 7);
  void *d;
  ASSERT_EQ(rt->malloc(&d, n), cudaSuccess);
  size_t before = state->batchCount();
  ASSERT_EQ(rt->memcpy(d, host.data(), n, cudaMemcpyHostToDevice, nullptr,
                       false, false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy(back.data(), d, n, cudaMemcpyDeviceToHost, nullptr,
                       false, false),
            cudaSuccess);
  EXPECT_EQ(back, host);
  // 4 D2H chunks, each its own reply-wanted batch.
  EXPECT_GE(state->batchCount() - before, 5u);
}

TEST(RuntimeMemory, AsyncReadLandsByTheStreamSync) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), nullptr);
  cudaStream_t s;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  void *d;
  ASSERT_EQ(rt->malloc(&d, 256), cudaSuccess);
  ASSERT_EQ(rt->memset(d, 0x5a, 256, s, false), cudaSuccess);
  std::vector<uint8_t> back(256, 0);
  ASSERT_EQ(
      rt->memcpy(back.data(), d, 256, cudaMemcpyDeviceToHost, s, true, false),
      cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  EXPECT_EQ(back, std::vector<uint8_t>(256, 0x5a));
}

TEST(RuntimeMemory, FreeAndHandlesAreCheckedAtTheCall) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), nullptr);
  void *d;
  ASSERT_EQ(rt->malloc(&d, 64), cudaSuccess);
  EXPECT_EQ(rt->free(static_cast<char *>(d) + 8), cudaErrorInvalidValue);
  EXPECT_EQ(rt->free(d), cudaSuccess);
  EXPECT_EQ(rt->free(d), cudaErrorInvalidValue) << "double free";
  EXPECT_EQ(rt->free(nullptr), cudaSuccess);
  EXPECT_EQ(rt->streams().streamSynchronize(
                reinterpret_cast<cudaStream_t>(0x999), false),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(rt->streams().eventRecord(reinterpret_cast<cudaEvent_t>(0x999),
                                      nullptr, false),
            cudaErrorInvalidResourceHandle);
  cudaStream_t s;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->streams().streamDestroy(s), cudaSuccess);
  EXPECT_EQ(rt->streams().streamDestroy(s), cudaErrorInvalidResourceHandle);
  cudaPointerAttributes attr;
  void *d2;
  ASSERT_EQ(rt->malloc(&d2, 64), cudaSuccess);
  ASSERT_EQ(rt->pointerAttributes(&attr, static_cast<char *>(d2) + 10),
            cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
  int local;
  ASSERT_EQ(rt->pointerAttributes(&attr, &local), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeUnregistered);
}

TEST(RuntimeMemory, EventsTimeAndQuery) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), nullptr);
  cudaEvent_t a, b, noTiming;
  ASSERT_EQ(rt->streams().eventCreate(&a, 0), cudaSuccess);
  ASSERT_EQ(rt->streams().eventCreate(&b, 0), cudaSuccess);
  ASSERT_EQ(rt->streams().eventCreate(&noTiming, cudaEventDisableTiming),
            cudaSuccess);
  ASSERT_EQ(rt->streams().eventRecord(a, nullptr, false), cudaSuccess);
  ASSERT_EQ(rt->streams().eventRecord(b, nullptr, false), cudaSuccess);
  ASSERT_EQ(rt->streams().eventSynchronize(b), cudaSuccess);
  float ms = 0;
  ASSERT_EQ(rt->streams().eventElapsedTime(&ms, a, b), cudaSuccess);
  EXPECT_FLOAT_EQ(ms, 1.5f);
  EXPECT_EQ(rt->streams().eventElapsedTime(&ms, a, noTiming),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(rt->streams().eventQuery(b), cudaSuccess);
  EXPECT_EQ(rt->streams().streamQuery(nullptr, false), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  EXPECT_EQ(rt->streams().streamWaitEvent(s, a, 0, false), cudaSuccess);
}

TEST(RuntimeMemory, PerThreadDefaultStreamIsCreatedLazily) {
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(), nullptr);
  void *d;
  ASSERT_EQ(rt->malloc(&d, 64), cudaSuccess);
  ASSERT_EQ(rt->memset(d, 1, 64, cudaStreamPerThread, false), cudaSuccess);
  ASSERT_EQ(rt->memset(d, 2, 64, nullptr, /*perThread=*/true), cudaSuccess);
  ASSERT_EQ(rt->memset(d, 3, 64, cudaStreamLegacy, true), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  std::lock_guard<std::mutex> l(state->mu);
  size_t creates = 0;
  for (auto c : state->commands)
    creates += c == rc::wire::Command::StreamCreate;
  EXPECT_EQ(creates, 1u) << "one per-thread stream, reused";
}

TEST(RuntimeMemory, SymbolCopiesGoThroughTheVariableAddress) {
  // Register a fatbin + variable the way clang's start-up code does.
  static const uint8_t fatbin[32] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
                                     16,   0,    0,    0,    0, 0, 0,  0};
  struct {
    int magic, version;
    const void *data;
    void *unused;
  } wrapper = {int(0x466243B1), 1, fatbin, nullptr};
  static float hostShadow[8];
  void **h = __cudaRegisterFatBinary(&wrapper);
  __cudaRegisterVar(h, reinterpret_cast<char *>(hostShadow), nullptr, "coeffs",
                    0, sizeof hostShadow, 1, 0);
  uint64_t hash = rc::fatbinHash(fatbin, rc::fatbinSize(fatbin));
  ASSERT_EQ(rc::fatbinSize(fatbin), 32u);
  auto state = std::make_shared<FakeState>();
  auto rt = makeRuntime(state, quietOptions(),
                        makeManifest(hash, {}, {{0x4444, "coeffs", 32}}));
  void *backing;
  ASSERT_EQ(rt->malloc(&backing, 32), cudaSuccess);
  state->symbols[0x4444] = uint64_t(uintptr_t(backing));
  float in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {};
  ASSERT_EQ(rt->memcpyToSymbol(hostShadow, in, sizeof in, 0,
                               cudaMemcpyHostToDevice, nullptr, false, false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpyFromSymbol(out, hostShadow, 16, 16,
                                 cudaMemcpyDeviceToHost, nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[3], 8);
  size_t size = 0;
  ASSERT_EQ(rt->symbolSize(&size, hostShadow), cudaSuccess);
  EXPECT_EQ(size, 32u);
  EXPECT_EQ(rt->memcpyToSymbol(hostShadow, in, 8, 30, cudaMemcpyHostToDevice,
                               nullptr, false, false),
            cudaErrorInvalidValue);
  int notASymbol;
  EXPECT_EQ(rt->memcpyToSymbol(&notASymbol, in, 4, 0, cudaMemcpyHostToDevice,
                               nullptr, false, false),
            cudaErrorInvalidSymbol);
}
