// Several GPUs behind one server: the client sees every device, and memory,
// streams, launches, peer copies, peer access and VMM land on the device
// they belong to (server on two host test devices, in process).
#include "in_process_runtime.h"

#include <cstring>
#include <vector>

namespace st = rc::server::test;

namespace {

class MultiDeviceTest : public st::InProcessRuntimeTest {
protected:
  int testDevices() const override { return 2; }
  void TearDown() override {
    rc::rt::threadDevice() = 0; // cudaSetDevice is per thread, tests share it
    InProcessRuntimeTest::TearDown();
  }
  // scale(float *p, int n) on `stream`.
  void launchScale(void *p, cudaStream_t stream) {
    int n = 4;
    void *args[] = {&p, &n};
    ASSERT_EQ(rt->kernels().launch(m.scaleId, dim3(1), dim3(32), args, 0,
                                   stream, false),
              cudaSuccess);
  }
  std::vector<uint8_t> read(const void *p, size_t n) {
    std::vector<uint8_t> out(n);
    EXPECT_EQ(rt->memcpy(out.data(), p, n, cudaMemcpyDeviceToHost, nullptr,
                         false, false),
              cudaSuccess);
    return out;
  }
  void write(void *p, const std::vector<uint8_t> &bytes) {
    ASSERT_EQ(rt->memcpy(p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice,
                         nullptr, false, false),
              cudaSuccess);
  }
};

TEST_F(MultiDeviceTest, SeesEveryDeviceOfTheServer) {
  int n = 0;
  ASSERT_EQ(rt->deviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 2);
  cudaDeviceProp p0, p1;
  ASSERT_EQ(rt->deviceProperties(&p0, 0), cudaSuccess);
  ASSERT_EQ(rt->deviceProperties(&p1, 1), cudaSuccess);
  EXPECT_NE(std::memcmp(&p0.uuid, &p1.uuid, sizeof p0.uuid), 0);
  EXPECT_EQ(rt->setDevice(2), cudaErrorInvalidDevice);
  ASSERT_EQ(rt->setDevice(1), cudaSuccess);
  int current = -1;
  ASSERT_EQ(rt->getDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 1);

  int can = -1;
  ASSERT_EQ(rt->canAccessPeer(&can, 0, 1), cudaSuccess);
  EXPECT_EQ(can, 1);
  ASSERT_EQ(rt->canAccessPeer(&can, 1, 1), cudaSuccess);
  EXPECT_EQ(can, 0); // a device is no peer of itself
  EXPECT_EQ(rt->canAccessPeer(&can, 0, 2), cudaErrorInvalidDevice);
}

TEST_F(MultiDeviceTest, LaunchesRunOnTheDeviceOfTheirStream) {
  void *a = deviceAlloc(64); // device 0
  ASSERT_EQ(rt->setDevice(1), cudaSuccess);
  void *b = deviceAlloc(64);
  cudaStream_t s1 = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s1, 0, 0), cudaSuccess);
  launchScale(b, nullptr); // device 1's legacy stream
  ASSERT_EQ(rt->setDevice(0), cudaSuccess);
  launchScale(a, nullptr); // device 0's
  launchScale(b, s1);      // a stream keeps its device
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);

  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].device, 1);
  EXPECT_EQ(launches[1].device, 0);
  EXPECT_EQ(launches[2].device, 1);
  ASSERT_EQ(rt->streams().streamDestroy(s1), cudaSuccess);
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

TEST_F(MultiDeviceTest, PeerCopiesMoveBytesBetweenDevices) {
  std::vector<uint8_t> in(256);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7 + 1);
  void *a = deviceAlloc(in.size());
  write(a, in);
  ASSERT_EQ(rt->setDevice(1), cudaSuccess);
  void *b = deviceAlloc(in.size());
  void *c = deviceAlloc(in.size());
  cudaStream_t s1 = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s1, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->memcpyPeer(b, 1, a, 0, in.size(), s1, true, false),
            cudaSuccess);
  EXPECT_EQ(read(b, in.size()), in);
  // A plain device-to-device copy of unified addresses crosses too.
  ASSERT_EQ(rt->memcpy(c, a, in.size(), cudaMemcpyDeviceToDevice, nullptr,
                       false, false),
            cudaSuccess);
  EXPECT_EQ(read(c, in.size()), in);
  EXPECT_EQ(rt->memcpyPeer(b, 2, a, 0, 16, nullptr, false, false),
            cudaErrorInvalidDevice);
  ASSERT_EQ(rt->streams().streamDestroy(s1), cudaSuccess);
}

TEST_F(MultiDeviceTest, PeerAccessFollowsCudartsRules) {
  EXPECT_EQ(rt->setPeerAccess(0, true), cudaErrorInvalidDevice);
  EXPECT_EQ(rt->setPeerAccess(2, true), cudaErrorInvalidDevice);
  EXPECT_EQ(rt->setPeerAccess(1, false), cudaErrorPeerAccessNotEnabled);
  ASSERT_EQ(rt->setPeerAccess(1, true), cudaSuccess);
  EXPECT_EQ(rt->setPeerAccess(1, true), cudaErrorPeerAccessAlreadyEnabled);
  ASSERT_EQ(rt->setDevice(1), cudaSuccess);
  ASSERT_EQ(rt->setPeerAccess(0, true), cudaSuccess); // per direction
  ASSERT_EQ(rt->setDevice(0), cudaSuccess);
  ASSERT_EQ(rt->setPeerAccess(1, false), cudaSuccess);
  // The server applied each in order: nothing failed.
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

TEST_F(MultiDeviceTest, FreeMemoryIsCountedPerDevice) {
  size_t free0 = 0, free1 = 0, total = 0;
  ASSERT_EQ(rt->setDevice(1), cudaSuccess);
  void *p = deviceAlloc(1 << 20);
  ASSERT_EQ(rt->memGetInfo(&free1, &total), cudaSuccess);
  ASSERT_EQ(rt->setDevice(0), cudaSuccess);
  ASSERT_EQ(rt->memGetInfo(&free0, &total), cudaSuccess);
  EXPECT_EQ(free0 - free1, size_t(1 << 20));
  cudaPointerAttributes pa;
  ASSERT_EQ(rt->pointerAttributes(&pa, p), cudaSuccess);
  EXPECT_EQ(pa.device, 1);
}

// ggml's pool on device 1 with access for both devices (GGML_CUDA_P2P).
TEST_F(MultiDeviceTest, VmmMemoryLivesOnTheRequestedDevice) {
  const size_t gran = 2 << 20;
  ASSERT_EQ(rt->setDevice(1), cudaSuccess);
  uint64_t base = 0, h = 0;
  ASSERT_EQ(rt->vmm().vmmAddressReserve(&base, 4 * gran, 0), cudaSuccess);
  ASSERT_EQ(rt->vmm().vmmCreate(&h, gran, 1), cudaSuccess);
  ASSERT_EQ(rt->vmm().vmmMap(base, gran, 0, h), cudaSuccess);
  ASSERT_EQ(rt->vmm().vmmRelease(h), cudaSuccess);
  ASSERT_EQ(rt->vmm().vmmSetAccess(base, gran, {0, 1}), cudaSuccess);
  std::vector<uint8_t> in(128, 0x5a);
  auto *pool = reinterpret_cast<void *>(uintptr_t(base));
  write(pool, in);
  ASSERT_EQ(rt->setDevice(0), cudaSuccess);
  void *a = deviceAlloc(in.size());
  ASSERT_EQ(rt->memcpyPeer(a, 0, pool, 1, in.size(), nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(read(a, in.size()), in);
  EXPECT_EQ(rt->vmm().vmmCreate(&h, gran, 2), cudaErrorInvalidDevice);
}

} // namespace
