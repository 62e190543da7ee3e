// Managed memory while device work is outstanding, against an in-process
// rc-server session on the host test device: the host may not touch it
// (as on GPUs without concurrent managed access), and an access ends the
// program with a line that says what happened, never a stale read or a
// lost write; the runtime's own copies keep working; memory attached to
// the host stays the host's.
#include "in_process_runtime.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace st = rc::server::test;

namespace {

std::string hex(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIxPTR, uintptr_t(p));
  return buf;
}

// The line the fault handler writes, as a death test's regex.
std::string refusal(const char *access, const void *at, size_t bytes,
                    const void *base) {
  return "remote-clang: the host " + std::string(access) +
         " managed memory at " + hex(at) + " \\(cudaMallocManaged, " +
         std::to_string(bytes) + " bytes at " + hex(base) +
         "\\) while the GPU may be using it; remote GPUs offer no concurrent "
         "managed access \\(cudaDevAttrConcurrentManagedAccess is 0\\): "
         "synchronize first";
}

class ManagedFenceTest : public st::InProcessRuntimeTest {
protected:
  void *managed(size_t n, unsigned flags = cudaMemAttachGlobal) {
    void *p = nullptr;
    EXPECT_EQ(rt->mallocManaged(&p, n, flags), cudaSuccess);
    return p;
  }
  // A kernel that takes p (the test device records it and runs nothing):
  // device work that may change managed memory.
  cudaError_t launchOn(void *p, cudaStream_t s = nullptr) {
    int n = 16;
    void *args[] = {&p, &n};
    return rt->kernels().launch(m.scaleId, dim3(1), dim3(16), args, 0, s,
                                false);
  }
  std::vector<uint8_t> deviceBytes(const void *p, size_t n) {
    std::vector<uint8_t> out(n, 0x5A);
    EXPECT_EQ(rt->memcpy(out.data(), p, n, cudaMemcpyDeviceToHost, nullptr,
                         /*async=*/false, false),
              cudaSuccess);
    return out;
  }
};

// systemWideAtomics' pattern: a kernel on managed memory, then host
// atomics on it without synchronizing. CUDA's answer on such GPUs is a
// segfault; ours is the same, with the line that says why.
TEST_F(ManagedFenceTest, HostAtomicsWhileAKernelMayRunEndTheProgramByName) {
  int *arr = static_cast<int *>(managed(10 * sizeof(int)));
  for (int i = 0; i < 10; ++i)
    arr[i] = 0;
  arr[7] = arr[9] = 0xff;
  ASSERT_EQ(launchOn(arr), cudaSuccess);
  EXPECT_EXIT(__sync_fetch_and_add(&arr[0], 10),
              testing::KilledBySignal(SIGSEGV),
              refusal("wrote", &arr[0], 40, arr));

  // With a synchronization first, the host's atomics count.
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  for (int i = 0; i < 1000; ++i)
    __sync_fetch_and_add(&arr[0], 10);
  EXPECT_EQ(arr[0], 10000);
  EXPECT_EQ(arr[7], 0xff);
  std::vector<uint8_t> dev = deviceBytes(arr, 40); // the device sees them
  int first;
  std::memcpy(&first, dev.data(), sizeof first);
  EXPECT_EQ(first, 10000);
  EXPECT_EQ(rt->free(arr), cudaSuccess);
}

// A read while a memset is outstanding would see the bytes from before it.
TEST_F(ManagedFenceTest, ReadsWhileDeviceWorkIsPendingAreRefused) {
  auto *p = static_cast<uint8_t *>(managed(5000));
  p[1] = 1;
  ASSERT_EQ(rt->memset(p, 0xAB, 5000, nullptr, false), cudaSuccess);
  EXPECT_EXIT(
      {
        volatile uint8_t v = p[4999];
        (void)v;
      },
      testing::KilledBySignal(SIGSEGV), refusal("read", p + 4999, 5000, p));
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(p[1], 0xAB);
  EXPECT_EQ(p[4999], 0xAB);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

TEST_F(ManagedFenceTest, AnotherThreadIsRefusedWhileThisOnesKernelRuns) {
  auto *p = static_cast<uint8_t *>(managed(64));
  ASSERT_EQ(launchOn(p), cudaSuccess);
  EXPECT_EXIT(
      {
        std::thread t([p] {
          volatile uint8_t v = p[3];
          (void)v;
        });
        t.join();
      },
      testing::KilledBySignal(SIGSEGV), refusal("read", p + 3, 64, p));
  ASSERT_EQ(rt->streams().streamSynchronize(nullptr, false), cudaSuccess);
  std::thread t([p] { p[3] = 9; }); // the device is idle now
  t.join();
  EXPECT_EQ(p[3], 9);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

// Managed memory allocated while a kernel may run is fenced with the rest:
// the next kernel may be given it before anything synchronizes.
TEST_F(ManagedFenceTest, MemoryAllocatedWhileTheDeviceWorksIsFencedToo) {
  void *a = managed(64);
  ASSERT_EQ(launchOn(a), cudaSuccess);
  auto *b = static_cast<uint8_t *>(managed(100));
  EXPECT_EXIT(b[0] = 1, testing::KilledBySignal(SIGSEGV),
              refusal("wrote", b, 100, b));
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(b[99], 0);
  b[0] = 1;
  EXPECT_EQ(deviceBytes(b, 1)[0], 1);
  EXPECT_EQ(rt->free(a), cudaSuccess);
  EXPECT_EQ(rt->free(b), cudaSuccess);
}

// Calls that leave no work able to change memory (streams, events,
// allocations, uploads, read-backs into host memory) fence nothing.
TEST_F(ManagedFenceTest, HostSideCallsLeaveManagedMemoryOpen) {
  auto *p = static_cast<uint8_t *>(managed(64));
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  void *dev = deviceAlloc(64);
  cudaStream_t s = nullptr;
  cudaEvent_t e = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->streams().eventCreate(&e, 0), cudaSuccess);
  ASSERT_EQ(rt->streams().eventRecord(e, s, false), cudaSuccess);
  std::vector<uint8_t> bytes(64, 3);
  ASSERT_EQ(rt->memcpy(dev, bytes.data(), 64, cudaMemcpyHostToDevice, s,
                       /*async=*/true, false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy(bytes.data(), dev, 64, cudaMemcpyDeviceToHost, s,
                       /*async=*/true, false),
            cudaSuccess);
  p[0] = 5; // would die if anything above had fenced it
  EXPECT_EQ(p[0], 5);
  EXPECT_EQ(rt->streams().eventDestroy(e), cudaSuccess);
  EXPECT_EQ(rt->streams().streamDestroy(s), cudaSuccess);
  EXPECT_EQ(rt->free(dev), cudaSuccess);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

// Copies into and out of fenced managed memory, whatever kind they name,
// are served on the device's copy (the current one) without opening the
// mirror; the synchronization brings their bytes to the host.
TEST_F(ManagedFenceTest, CopiesKeepWorkingWhileTheMirrorIsFenced) {
  auto *p = static_cast<uint8_t *>(managed(8192));
  void *dev = deviceAlloc(4096), *out = deviceAlloc(4096);
  ASSERT_EQ(rt->memset(dev, 0x24, 4096, nullptr, false), cudaSuccess);
  ASSERT_EQ(launchOn(p), cudaSuccess);
  std::vector<uint8_t> src(4096, 0x42);
  ASSERT_EQ(rt->memcpy(p, src.data(), 4096, cudaMemcpyHostToDevice, nullptr,
                       true, false),
            cudaSuccess);
  // Named device-to-host, into managed memory: a copy on the device.
  ASSERT_EQ(rt->memcpy(p + 4096, dev, 4096, cudaMemcpyDeviceToHost, nullptr,
                       true, false),
            cudaSuccess);
  // Named host-to-device, out of managed memory: read on the device.
  ASSERT_EQ(
      rt->memcpy(out, p, 4096, cudaMemcpyHostToDevice, nullptr, true, false),
      cudaSuccess);
  EXPECT_EXIT(
      {
        volatile uint8_t v = p[0];
        (void)v;
      },
      testing::KilledBySignal(SIGSEGV), refusal("read", p, 8192, p));
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(std::vector<uint8_t>(p, p + 4096), src);
  EXPECT_EQ(std::vector<uint8_t>(p + 4096, p + 8192),
            std::vector<uint8_t>(4096, 0x24));
  EXPECT_EQ(deviceBytes(out, 4096), src);
  // A synchronous copy out of managed memory while fenced is a sync too.
  ASSERT_EQ(launchOn(p), cudaSuccess);
  std::vector<uint8_t> back(16, 0);
  ASSERT_EQ(rt->memcpy(back.data(), p + 4090, 16, cudaMemcpyDefault, nullptr,
                       false, false),
            cudaSuccess);
  EXPECT_EQ(back[0], 0x42);
  EXPECT_EQ(back[15], 0x24);
  p[0] = 1; // open again
  EXPECT_EQ(rt->free(dev), cudaSuccess);
  EXPECT_EQ(rt->free(out), cudaSuccess);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

// cudaMallocManaged(..., cudaMemAttachHost): the host's while kernels run,
// never read back over the host's writes, and copied as host memory;
// kernels and memsets may not touch it until it is attached to the device.
TEST_F(ManagedFenceTest, MemoryAttachedToTheHostStaysTheHosts) {
  auto *h = static_cast<uint8_t *>(managed(4096, cudaMemAttachHost));
  void *g = managed(64);
  void *dev = deviceAlloc(4096);
  ASSERT_EQ(launchOn(g), cudaSuccess);
  std::memset(h, 7, 4096); // no fence on it
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(h[4095], 7) << "not overwritten by a read-back";

  EXPECT_EQ(launchOn(h), cudaErrorInvalidValue);
  EXPECT_EQ(rt->memset(h, 0, 16, nullptr, false), cudaErrorInvalidValue);
  ASSERT_EQ(rt->memcpy(dev, h, 4096, cudaMemcpyDefault, nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(deviceBytes(dev, 4096), std::vector<uint8_t>(4096, 7));
  ASSERT_EQ(rt->memset(dev, 0x31, 100, nullptr, false), cudaSuccess);
  ASSERT_EQ(
      rt->memcpy(h, dev, 100, cudaMemcpyDeviceToDevice, nullptr, false, false),
      cudaSuccess);
  EXPECT_EQ(h[99], 0x31);
  EXPECT_EQ(h[100], 7);

  // Attached to the device, the host's bytes go up before its next work,
  // and it is fenced like the rest.
  cudaStream_t s = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->streamAttachMemory(s, h, 0, cudaMemAttachSingle, false),
            cudaSuccess);
  ASSERT_EQ(launchOn(h, s), cudaSuccess);
  EXPECT_EXIT(h[0] = 0, testing::KilledBySignal(SIGSEGV),
              refusal("wrote", h, 4096, h));
  std::vector<uint8_t> seen = deviceBytes(h, 4096);
  EXPECT_EQ(seen[99], 0x31);
  EXPECT_EQ(seen[100], 7);
  EXPECT_EQ(rt->streams().streamDestroy(s), cudaSuccess);
  EXPECT_EQ(rt->free(dev), cudaSuccess);
  EXPECT_EQ(rt->free(g), cudaSuccess);
  EXPECT_EQ(rt->free(h), cudaSuccess);
}

// cudaStreamAttachMemAsync(..., cudaMemAttachHost) while the device works
// takes effect once a synchronization has brought the memory back, as in
// UnifiedMemoryStreams: attach, synchronize the stream, then use it on the
// host while other work runs.
TEST_F(ManagedFenceTest, AttachingToTheHostTakesEffectAtTheNextSync) {
  auto *p = static_cast<uint8_t *>(managed(4096));
  void *other = managed(64);
  cudaStream_t s = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->memset(p, 0x5A, 4096, nullptr, false), cudaSuccess);
  ASSERT_EQ(rt->streamAttachMemory(s, p, 0, cudaMemAttachHost, false),
            cudaSuccess);
  EXPECT_EXIT(p[0] = 1, testing::KilledBySignal(SIGSEGV),
              refusal("wrote", p, 4096, p));
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  EXPECT_EQ(p[4095], 0x5A);

  ASSERT_EQ(launchOn(other), cudaSuccess);
  p[0] = 1; // the device works, but not on this
  EXPECT_EQ(p[0], 1);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(p[0], 1) << "not read back over the host's write";

  // Back to the device: the host's write goes up first.
  ASSERT_EQ(rt->streamAttachMemory(s, p, 0, cudaMemAttachGlobal, false),
            cudaSuccess);
  EXPECT_EQ(deviceBytes(p, 2), (std::vector<uint8_t>{1, 0x5A}));
  EXPECT_EQ(rt->streams().streamDestroy(s), cudaSuccess);
  EXPECT_EQ(rt->free(other), cudaSuccess);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

// A host function runs once the stream's earlier work is done: like a
// synchronization, it finds managed memory brought back and open.
TEST_F(ManagedFenceTest, HostFunctionsSeeWhatTheStreamWrote) {
  auto *p = static_cast<uint8_t *>(managed(256));
  cudaStream_t s = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->memset(p, 0x77, 256, s, false), cudaSuccess);
  struct Probe {
    uint8_t *p;
    uint8_t seen = 0;
  } probe{p};
  auto readFirst = [](void *d) {
    auto *pr = static_cast<Probe *>(d);
    pr->seen = pr->p[0];
  };
  ASSERT_EQ(rt->launchHostFunc(s, readFirst, &probe, false), cudaSuccess);
  EXPECT_EQ(probe.seen, 0x77);
  ASSERT_EQ(rt->memset(p, 0x78, 256, s, false), cudaSuccess);
  auto callback = [](cudaStream_t, cudaError_t status, void *d) {
    auto *pr = static_cast<Probe *>(d);
    pr->seen = status == cudaSuccess ? pr->p[255] : 0;
  };
  ASSERT_EQ(rt->streamAddCallback(s, callback, &probe, 0, false), cudaSuccess);
  EXPECT_EQ(probe.seen, 0x78);
  EXPECT_EQ(rt->streams().streamDestroy(s), cudaSuccess);
  EXPECT_EQ(rt->free(p), cudaSuccess);
}

} // namespace
