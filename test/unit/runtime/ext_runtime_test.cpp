// The runtime's function attributes, occupancy, cooperative / PDL launches,
// 2D and peer copies, host registration, host functions and driver VMM,
// against a real in-process rc-server session on the host test device
// (ServerCore over an in-memory connection), so both ends of each new
// command are exercised together.
#include "in_process_runtime.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

namespace st = rc::server::test;

namespace {

class RuntimeExtTest : public st::InProcessRuntimeTest {};

TEST_F(RuntimeExtTest, FunctionAttributesAreLocalAndSettable) {
  cudaFuncAttributes a;
  uint64_t before = rt->messagesSent();
  ASSERT_EQ(rt->kernels().funcGetAttributes(&a, m.scaleId), cudaSuccess);
  EXPECT_EQ(a.numRegs, 32);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 48 * 1024);
  EXPECT_EQ(a.binaryVersion, 90);
  EXPECT_EQ(rt->kernels().funcGetAttributes(&a, 0xdead),
            cudaErrorInvalidDeviceFunction);

  ASSERT_EQ(rt->kernels().funcSetAttribute(
                m.scaleId, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000),
            cudaSuccess);
  ASSERT_EQ(rt->kernels().funcGetAttributes(&a, m.scaleId), cudaSuccess);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 200000);
  EXPECT_EQ(rt->messagesSent(), before) << "attributes cost no message";
  // Beyond the 227 KiB opt-in limit of the device: refused at the call.
  EXPECT_EQ(rt->kernels().funcSetAttribute(
                m.scaleId, cudaFuncAttributeMaxDynamicSharedMemorySize, 300000),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->kernels().funcSetAttribute(
                m.scaleId, cudaFuncAttributePreferredSharedMemoryCarveout, 101),
            cudaErrorInvalidValue);
  // cudaFuncSetCacheConfig is a carveout preference.
  ASSERT_EQ(rt->kernels().funcSetCacheConfig(m.scaleId, cudaFuncCachePreferL1),
            cudaSuccess);
  ASSERT_EQ(rt->kernels().funcGetAttributes(&a, m.scaleId), cudaSuccess);
  EXPECT_EQ(a.preferredShmemCarveout, 0);
  ASSERT_EQ(
      rt->kernels().funcSetCacheConfig(m.scaleId, cudaFuncCachePreferShared),
      cudaSuccess);
  ASSERT_EQ(rt->kernels().funcGetAttributes(&a, m.scaleId), cudaSuccess);
  EXPECT_EQ(a.preferredShmemCarveout, 100);
  EXPECT_EQ(rt->kernels().funcSetCacheConfig(m.scaleId, 7),
            cudaErrorInvalidValue);
  // The batched FuncSetAttribute commands were accepted by the server.
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

// cudaProfilerStart / Stop reach the server (a profiler attached to
// rc-server collects between them) in the batch, with no round trip of
// their own; the server accepts them where no profiler is attached.
TEST_F(RuntimeExtTest, ProfilerStartAndStopAreBatched) {
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  uint64_t trips = rt->roundTrips(), sent = rt->messagesSent();
  ASSERT_EQ(rt->setProfiling(true), cudaSuccess);
  ASSERT_EQ(rt->setProfiling(false), cudaSuccess);
  EXPECT_EQ(rt->messagesSent(), sent) << "batched, not sent at once";
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1) << "only the sync's";
}

// cudaDeviceSetLimit / GetLimit reach the session's context, one round trip
// each: what is set reads back, a number that is no limit is refused, and
// the server's refusal of a value comes back at the call.
TEST_F(RuntimeExtTest, DeviceLimitsAreSetAndReadInTheSession) {
  size_t value = 0;
  ASSERT_EQ(rt->deviceLimit(cudaLimitStackSize, &value, false), cudaSuccess);
  EXPECT_EQ(value, 1024u) << "CUDA's default stack";
  uint64_t trips = rt->roundTrips();
  value = 8192;
  ASSERT_EQ(rt->deviceLimit(cudaLimitStackSize, &value, true), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1);
  value = 0;
  ASSERT_EQ(rt->deviceLimit(cudaLimitStackSize, &value, false), cudaSuccess);
  EXPECT_EQ(value, 8192u);
  value = 64 << 20;
  ASSERT_EQ(rt->deviceLimit(cudaLimitMallocHeapSize, &value, true),
            cudaSuccess);
  EXPECT_EQ(value, size_t(64) << 20);
  value = 1;
  EXPECT_EQ(rt->deviceLimit(99, &value, true), cudaErrorInvalidValue);
  value = ~size_t(0);
  EXPECT_EQ(rt->deviceLimit(cudaLimitMallocHeapSize, &value, true),
            cudaErrorMemoryAllocation);
  value = 0;
  ASSERT_EQ(rt->deviceLimit(cudaLimitMallocHeapSize, &value, false),
            cudaSuccess);
  EXPECT_EQ(value, size_t(64) << 20) << "a refused value changes nothing";
  EXPECT_EQ(rt->deviceLimit(cudaLimitStackSize, nullptr, false),
            cudaErrorInvalidValue);
}

TEST_F(RuntimeExtTest, OccupancyFollowsTheAttributes) {
  int n = -1;
  ASSERT_EQ(rt->kernels().occupancyMaxActiveBlocks(&n, m.scaleId, 256, 0, 0),
            cudaSuccess);
  EXPECT_EQ(n, 8); // 32 registers, 256 threads on the Hopper-like device
  // 64 KiB of dynamic shared memory exceeds the default 48 KiB limit ...
  ASSERT_EQ(
      rt->kernels().occupancyMaxActiveBlocks(&n, m.scaleId, 128, 64 << 10, 0),
      cudaSuccess);
  EXPECT_EQ(n, 0);
  // ... until it is raised: (64 + 1) KiB per block in 228 KiB -> 3.
  ASSERT_EQ(rt->kernels().funcSetAttribute(
                m.scaleId, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536),
            cudaSuccess);
  ASSERT_EQ(
      rt->kernels().occupancyMaxActiveBlocks(&n, m.scaleId, 128, 64 << 10, 0),
      cudaSuccess);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(rt->kernels().occupancyMaxActiveBlocks(&n, m.scaleId, 0, 0, 0),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->kernels().occupancyMaxActiveBlocks(&n, m.scaleId, 32, 0, 4),
            cudaErrorInvalidValue);
}

TEST_F(RuntimeExtTest, CooperativeAndPdlLaunchesCarryTheirFlags) {
  float *p = static_cast<float *>(deviceAlloc(256));
  int count = 64;
  void *args[] = {&p, &count};
  ASSERT_EQ(rt->kernels().launchCooperative(m.scaleId, dim3(2), dim3(32), args,
                                            0, nullptr, false),
            cudaSuccess);
  // 8 blocks of 256 threads per SM x 132 SMs can be co-resident; one more
  // is refused at the call, as cudart does.
  EXPECT_EQ(rt->kernels().launchCooperative(m.scaleId, dim3(8 * 132 + 1),
                                            dim3(256), args, 0, nullptr, false),
            cudaErrorCooperativeLaunchTooLarge);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(4);
  cfg.blockDim = dim3(64);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  ASSERT_EQ(rt->kernels().launchEx(&cfg, m.scaleId, args, false), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  auto l = backend().launches();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_TRUE(l[0].config.cooperative);
  EXPECT_FALSE(l[0].config.programmaticSerialization);
  EXPECT_TRUE(l[1].config.programmaticSerialization);
  EXPECT_EQ(l[1].config.grid[0], 4u);
}

TEST_F(RuntimeExtTest, Memcpy2DInEveryDirection) {
  // A 5 x 12-byte tile between pitches 16 (host) and 32 (device).
  const size_t width = 12, height = 5, hp = 16, dp = 32;
  std::vector<uint8_t> host(hp * height), back(hp * height, 0xEE);
  std::iota(host.begin(), host.end(), uint8_t(1));
  auto *dev = static_cast<uint8_t *>(deviceAlloc(dp * height));
  auto *dev2 = static_cast<uint8_t *>(deviceAlloc(dp * height));
  ASSERT_EQ(rt->memset(dev, 0, dp * height, nullptr, false), cudaSuccess);
  ASSERT_EQ(rt->memcpy2D(dev, dp, host.data(), hp, width, height,
                         cudaMemcpyHostToDevice, nullptr, true, false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy2D(dev2, dp, dev, dp, width, height,
                         cudaMemcpyDeviceToDevice, nullptr, true, false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy2D(back.data(), hp, dev2, dp, width, height,
                         cudaMemcpyDefault, nullptr, false, false),
            cudaSuccess);
  for (size_t r = 0; r < height; ++r)
    for (size_t c = 0; c < hp; ++c)
      EXPECT_EQ(back[r * hp + c], c < width ? host[r * hp + c] : 0xEE)
          << "row " << r << " col " << c;
  // The device pitch gap stayed untouched (zero).
  std::vector<uint8_t> raw(dp * height, 0xAA);
  ASSERT_EQ(rt->memcpy(raw.data(), dev, raw.size(), cudaMemcpyDeviceToHost,
                       nullptr, false, false),
            cudaSuccess);
  EXPECT_EQ(raw[width], 0);
  EXPECT_EQ(raw[dp + 1], host[hp + 1]);
  EXPECT_EQ(rt->memcpy2D(dev, 8, host.data(), hp, width, height,
                         cudaMemcpyHostToDevice, nullptr, true, false),
            cudaErrorInvalidPitchValue);
}

// cudaMallocPitch rounds rows to 512 bytes; cudaMemset2D fills the rows and
// not the gaps between them; cudaMemcpy3D moves a 3 x 4 x 2 block (with
// offsets) from a host layout into a pitched device one and back into a
// third layout; cudaMemset3D clears one slice.
TEST_F(RuntimeExtTest, PitchedMemoryIn2DAnd3D) {
  void *dev = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(rt->mallocPitch(&dev, &pitch, 100, 8), cudaSuccess);
  EXPECT_EQ(pitch, 512u);
  ASSERT_EQ(rt->memset(dev, 0, pitch * 8, nullptr, false), cudaSuccess);
  ASSERT_EQ(rt->memset2D(dev, pitch, 7, 100, 8, nullptr), cudaSuccess);
  std::vector<uint8_t> raw(pitch * 8);
  ASSERT_EQ(rt->memcpy(raw.data(), dev, raw.size(), cudaMemcpyDeviceToHost,
                       nullptr, false, false),
            cudaSuccess);
  for (size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(raw[r * pitch + 99], 7) << "row " << r;
    EXPECT_EQ(raw[r * pitch + 100], 0) << "gap after row " << r;
  }
  EXPECT_EQ(rt->memset2D(dev, pitch, 1, 100, 9, nullptr), cudaErrorInvalidValue)
      << "a ninth row is past the allocation";
  EXPECT_EQ(rt->memset2D(dev, 64, 1, 100, 2, nullptr),
            cudaErrorInvalidPitchValue);

  // Host source: 5-byte rows of a 6-row slice, block at (1, 2, 0).
  std::vector<uint8_t> host(5 * 6 * 2);
  std::iota(host.begin(), host.end(), uint8_t(1));
  cudaMemcpy3DParms up = {};
  up.srcPtr = cudaPitchedPtr{host.data(), 5, 5, 6};
  up.srcPos = cudaPos{1, 2, 0};
  up.dstPtr = cudaPitchedPtr{dev, pitch, 100, 4};
  up.extent = cudaExtent{3, 4, 2};
  up.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(rt->memcpy3D(&up, nullptr, true), cudaSuccess);
  std::vector<uint8_t> back(3 * 4 * 2, 0);
  cudaMemcpy3DParms down = {};
  down.srcPtr = up.dstPtr;
  down.dstPtr = cudaPitchedPtr{back.data(), 3, 3, 4};
  down.extent = up.extent;
  down.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(rt->memcpy3D(&down, nullptr, false), cudaSuccess);
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 4; ++y)
      for (size_t x = 0; x < 3; ++x)
        ASSERT_EQ(back[z * 12 + y * 3 + x],
                  host[z * 30 + (y + 2) * 5 + (x + 1)])
            << x << "," << y << "," << z;

  ASSERT_EQ(rt->memset3D(cudaPitchedPtr{dev, pitch, 100, 4}, 0,
                         cudaExtent{3, 4, 1}, nullptr),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy3D(&down, nullptr, false), cudaSuccess);
  EXPECT_EQ(back[0], 0) << "slice 0 cleared";
  EXPECT_EQ(back[12], host[30 + 2 * 5 + 1]) << "slice 1 kept";
  cudaMemcpy3DParms withArray = down;
  withArray.dstArray = reinterpret_cast<cudaArray_t>(0x1);
  EXPECT_EQ(rt->memcpy3D(&withArray, nullptr, false),
            cudaErrorInvalidResourceHandle)
      << "an array this runtime did not make";
}

// cudaStreamGetFlags / GetPriority answer what the stream was created
// with, the priority clamped to the device's range; no message.
TEST_F(RuntimeExtTest, StreamFlagsAndPriorityAreLocal) {
  cudaStream_t hi = nullptr, lo = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&hi, cudaStreamNonBlocking, -99),
            cudaSuccess);
  ASSERT_EQ(rt->streams().streamCreate(&lo, 0, 0), cudaSuccess);
  uint64_t sent = rt->messagesSent();
  unsigned flags = 7;
  int priority = 7;
  ASSERT_EQ(rt->streams().streamFlagsAndPriority(hi, &flags, &priority),
            cudaSuccess);
  EXPECT_EQ(flags, unsigned(cudaStreamNonBlocking));
  EXPECT_EQ(priority, -5);
  ASSERT_EQ(rt->streams().streamFlagsAndPriority(lo, &flags, &priority),
            cudaSuccess);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(priority, 0);
  ASSERT_EQ(rt->streams().streamFlagsAndPriority(nullptr, &flags, &priority),
            cudaSuccess);
  EXPECT_EQ(rt->messagesSent(), sent);
  ASSERT_EQ(rt->streams().streamDestroy(lo), cudaSuccess);
  EXPECT_EQ(rt->streams().streamFlagsAndPriority(lo, &flags, &priority),
            cudaErrorInvalidResourceHandle);
}

// cudaMallocAsync is an ordinary allocation, usable at once; in a capture
// it becomes a graph memory node (graph_memory_test.cpp).
TEST_F(RuntimeExtTest, StreamOrderedAllocationOutsideCaptures) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, cudaStreamNonBlocking, 0),
            cudaSuccess);
  void *p = nullptr;
  ASSERT_EQ(rt->mallocAsync(&p, 256, s), cudaSuccess);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(rt->memset(p, 1, 256, s, false), cudaSuccess);
  ASSERT_EQ(rt->freeAsync(p, s), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
}

TEST_F(RuntimeExtTest, PeerCopiesWithinTheOneDevice) {
  auto *a = static_cast<uint8_t *>(deviceAlloc(64));
  auto *b = static_cast<uint8_t *>(deviceAlloc(64));
  std::vector<uint8_t> in(64, 7), out(64, 0);
  ASSERT_EQ(rt->memcpy(a, in.data(), 64, cudaMemcpyHostToDevice, nullptr, false,
                       false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpyPeer(b, 0, a, 0, 64, nullptr, true, false), cudaSuccess);
  ASSERT_EQ(rt->memcpy(out.data(), b, 64, cudaMemcpyDeviceToHost, nullptr,
                       false, false),
            cudaSuccess);
  EXPECT_EQ(out, in);
  EXPECT_EQ(rt->memcpyPeer(b, 1, a, 0, 64, nullptr, true, false),
            cudaErrorInvalidDevice);
}

TEST_F(RuntimeExtTest, HostRegistrationIsRecorded) {
  std::vector<uint8_t> buf(8192);
  ASSERT_EQ(rt->hostRegister(buf.data(), buf.size(), cudaHostRegisterPortable),
            cudaSuccess);
  cudaPointerAttributes pa;
  ASSERT_EQ(rt->pointerAttributes(&pa, buf.data() + 100), cudaSuccess);
  EXPECT_EQ(pa.type, cudaMemoryTypeHost);
  EXPECT_EQ(rt->hostRegister(buf.data() + 4096, 16, 0),
            cudaErrorHostMemoryAlreadyRegistered);
  ASSERT_EQ(rt->hostUnregister(buf.data()), cudaSuccess);
  EXPECT_EQ(rt->hostUnregister(buf.data()), cudaErrorHostMemoryNotRegistered);
  ASSERT_EQ(rt->pointerAttributes(&pa, buf.data()), cudaSuccess);
  EXPECT_EQ(pa.type, cudaMemoryTypeUnregistered);
}

struct HostFnProbe {
  uint8_t *readBack;
  uint8_t seen = 0;
};

TEST_F(RuntimeExtTest, HostFunctionRunsAfterThePriorWorkOfItsStream) {
  auto *dev = static_cast<uint8_t *>(deviceAlloc(16));
  HostFnProbe probe;
  uint8_t landing = 0;
  probe.readBack = &landing;
  ASSERT_EQ(rt->memset(dev, 0x5A, 16, nullptr, false), cudaSuccess);
  // An async read-back issued before the host function has landed when the
  // function runs: the stream's earlier work is complete.
  ASSERT_EQ(rt->memcpy(&landing, dev, 1, cudaMemcpyDeviceToHost, nullptr, true,
                       false),
            cudaSuccess);
  uint64_t trips = rt->roundTrips();
  auto fn = [](void *p) {
    auto *pr = static_cast<HostFnProbe *>(p);
    pr->seen = *pr->readBack;
  };
  ASSERT_EQ(rt->launchHostFunc(nullptr, fn, &probe, false), cudaSuccess);
  EXPECT_EQ(probe.seen, 0x5A);
  EXPECT_EQ(rt->roundTrips(), trips + 1);
  EXPECT_EQ(rt->launchHostFunc(nullptr, nullptr, nullptr, false),
            cudaErrorInvalidValue);
}

TEST_F(RuntimeExtTest, VmmPoolGrowsLikeGgmls) {
  const size_t gran = 2 << 20, reserved = size_t(32) << 30;
  uint64_t base = 0;
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(rt->vmm().vmmAddressReserve(&base, reserved, 0), cudaSuccess);
  ASSERT_NE(base, 0u);
  for (int chunk = 0; chunk < 2; ++chunk) {
    uint64_t h = 0, at = base + chunk * gran;
    ASSERT_EQ(rt->vmm().vmmCreate(&h, gran, 0), cudaSuccess);
    ASSERT_EQ(rt->vmm().vmmMap(at, gran, 0, h), cudaSuccess);
    ASSERT_EQ(rt->vmm().vmmRelease(h), cudaSuccess);
    ASSERT_EQ(rt->vmm().vmmSetAccess(at, gran, {0}), cudaSuccess);
  }
  EXPECT_EQ(rt->roundTrips(), trips + 1) << "only the reservation waits";
  // A buffer across the two chunks; cudaMemcpyDefault sees device memory.
  auto *p = reinterpret_cast<uint8_t *>(uintptr_t(base + gran - 8));
  std::vector<uint8_t> in(16), out(16, 0);
  std::iota(in.begin(), in.end(), uint8_t(10));
  ASSERT_EQ(
      rt->memcpy(p, in.data(), 16, cudaMemcpyDefault, nullptr, false, false),
      cudaSuccess);
  ASSERT_EQ(
      rt->memcpy(out.data(), p, 16, cudaMemcpyDefault, nullptr, false, false),
      cudaSuccess);
  EXPECT_EQ(out, in);
  ASSERT_EQ(rt->vmm().vmmUnmap(base, 2 * gran), cudaSuccess);
  ASSERT_EQ(rt->vmm().vmmAddressFree(base, reserved), cudaSuccess);
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
  // A bad map is reported at the next sync, naming the call.
  ASSERT_EQ(rt->vmm().vmmMap(base, gran, 0, 999), cudaSuccess);
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt->deviceSynchronize(), cudaErrorInvalidValue);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cuMemMap"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown allocation handle"), std::string::npos) << err;
}

// cudaCompressibleMemory's allocation: compression asked for costs one
// round trip, for what the driver granted (the test device grants it);
// the properties are answered from that, until the handle is released.
TEST_F(RuntimeExtTest, CompressibleVmmMemoryReportsWhatWasGranted) {
  const size_t gran = 2 << 20;
  uint64_t plain = 0, compressed = 0;
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(rt->vmm().vmmCreate(&plain, gran, 0), cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips);
  ASSERT_EQ(
      rt->vmm().vmmCreate(&compressed, gran, 0, CU_MEM_ALLOCATION_COMP_GENERIC),
      cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1);
  int device = -1;
  uint8_t compression = 9;
  ASSERT_EQ(rt->vmm().vmmProperties(plain, &device, &compression), cudaSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(compression, 0);
  ASSERT_EQ(rt->vmm().vmmProperties(compressed, &device, &compression),
            cudaSuccess);
  EXPECT_EQ(compression, CU_MEM_ALLOCATION_COMP_GENERIC);
  ASSERT_EQ(rt->vmm().vmmRelease(compressed), cudaSuccess);
  EXPECT_EQ(rt->vmm().vmmProperties(compressed, &device, &compression),
            cudaErrorInvalidValue);
  ASSERT_EQ(rt->vmm().vmmRelease(plain), cudaSuccess);
  // A compression type the driver does not define fails at the call.
  uint64_t bad = 0;
  EXPECT_EQ(rt->vmm().vmmCreate(&bad, gran, 0, 7), cudaErrorInvalidValue);
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

// A client on another machine has managed memory only without concurrent
// access (host mirrors), and no mapped or pageable host memory; both ways of
// asking say so alike.
TEST_F(RuntimeExtTest, HostCoupledCapabilitiesAreAbsentBothWays) {
  cudaDeviceProp p;
  ASSERT_EQ(rt->deviceProperties(&p, 0), cudaSuccess);
  EXPECT_EQ(p.managedMemory, 1) << "served by host mirrors";
  EXPECT_EQ(p.concurrentManagedAccess, 0);
  EXPECT_EQ(p.canMapHostMemory, 0);
  int managed = 0;
  ASSERT_EQ(rt->deviceAttribute(&managed, cudaDevAttrManagedMemory, 0),
            cudaSuccess);
  EXPECT_EQ(managed, 1);
  for (int attr : {cudaDevAttrConcurrentManagedAccess,
                   cudaDevAttrCanMapHostMemory, cudaDevAttrPageableMemoryAccess,
                   cudaDevAttrDirectManagedMemAccessFromHost}) {
    int value = -1;
    ASSERT_EQ(rt->deviceAttribute(&value, attr, 0), cudaSuccess);
    EXPECT_EQ(value, 0) << "attribute " << attr;
  }
  int threads = 0;
  ASSERT_EQ(rt->deviceAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, 0),
            cudaSuccess);
  EXPECT_EQ(threads, p.maxThreadsPerBlock) << "the others are the server's";
}

// cudaStreamSetAttribute is batched and checked (an access policy window
// must be the session's memory); GetAttribute answers locally;
// cudaCtxResetPersistingL2Cache is batched.
TEST_F(RuntimeExtTest, StreamAttributesAreSetAndReadBack) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(rt->streams().streamCreate(&s, 0, 0), cudaSuccess);
  void *dev = nullptr;
  ASSERT_EQ(rt->malloc(&dev, 4096), cudaSuccess);
  uint64_t trips = rt->roundTrips();
  cudaLaunchAttributeValue v = {};
  v.accessPolicyWindow.base_ptr = dev;
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  ASSERT_EQ(rt->streams().streamSetAttribute(
                s, cudaLaunchAttributeAccessPolicyWindow, &v, false),
            cudaSuccess);
  cudaLaunchAttributeValue got = {};
  ASSERT_EQ(rt->streams().streamGetAttribute(
                s, cudaLaunchAttributeAccessPolicyWindow, &got, false),
            cudaSuccess);
  EXPECT_EQ(got.accessPolicyWindow.base_ptr, dev);
  EXPECT_EQ(got.accessPolicyWindow.hitRatio, 0.6f);
  ASSERT_EQ(rt->streams().streamGetAttribute(
                s, cudaLaunchAttributeSynchronizationPolicy, &got, false),
            cudaSuccess);
  EXPECT_EQ(got.syncPolicy, cudaSyncPolicyAuto) << "CUDA's default";
  EXPECT_EQ(rt->roundTrips(), trips) << "no round trip";
  v.accessPolicyWindow.num_bytes = 8192; // past the allocation
  EXPECT_EQ(rt->streams().streamSetAttribute(
                s, cudaLaunchAttributeAccessPolicyWindow, &v, false),
            cudaErrorInvalidValue);
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 1.5f;
  EXPECT_EQ(rt->streams().streamSetAttribute(
                s, cudaLaunchAttributeAccessPolicyWindow, &v, false),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->streams().streamSetAttribute(s, cudaLaunchAttributeCooperative,
                                             &v, false),
            cudaErrorInvalidValue)
      << "a launch attribute, not a stream's";
  v.priority = -3;
  ASSERT_EQ(rt->streams().streamSetAttribute(s, cudaLaunchAttributePriority, &v,
                                             false),
            cudaSuccess);
  ASSERT_EQ(rt->resetPersistingL2(), cudaSuccess);
  EXPECT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess)
      << "the server took all three";
}

// CUDA arrays on the host test device: 2D copies in and out with their
// own pitches and offsets, a linear copy running over rows, a layered 3D
// array through cudaMemcpy3D, device memory to an array and back; every
// array call but the read-back costs no round trip.
class RuntimeArrayTest : public st::InProcessRuntimeTest {};

TEST_F(RuntimeArrayTest, CopiesInAndOutKeepTheBytes) {
  cudaChannelFormatDesc f = {32, 0, 0, 0, cudaChannelFormatKindFloat};
  cudaArray_t a = nullptr;
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(rt->arrays().arrayCreate(&a, &f, cudaExtent{5, 4, 0}, 0),
            cudaSuccess);
  // 5 x 4 floats from a host layout of 7 floats a row.
  std::vector<float> host(7 * 4);
  std::iota(host.begin(), host.end(), 1.0f);
  rc::rt::Runtime::ArrayBox box;
  box.width = 5 * 4;
  box.height = 4;
  ASSERT_EQ(rt->arrays().arrayCopy(a, box, true, host.data(), 7 * 4, 4,
                                   cudaMemcpyHostToDevice, nullptr, "test"),
            cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips) << "creating and filling are batched";
  // Back into a layout of 6 floats a row.
  std::vector<float> back(6 * 4, -1.0f);
  ASSERT_EQ(rt->arrays().arrayCopy(a, box, false, back.data(), 6 * 4, 4,
                                   cudaMemcpyDeviceToHost, nullptr, "test"),
            cudaSuccess);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 5; ++x)
      ASSERT_EQ(back[y * 6 + x], host[y * 7 + x]) << x << "," << y;
    EXPECT_EQ(back[y * 6 + 5], -1.0f) << "the gap of row " << y << " stays";
  }
  // A 2 x 2 box at (3, 1), read alone.
  rc::rt::Runtime::ArrayBox corner;
  corner.x = 3 * 4;
  corner.y = 1;
  corner.width = 2 * 4;
  corner.height = 2;
  float four[4] = {};
  ASSERT_EQ(rt->arrays().arrayCopy(a, corner, false, four, 8, 2,
                                   cudaMemcpyDeviceToHost, nullptr, "test"),
            cudaSuccess);
  EXPECT_EQ(four[0], host[1 * 7 + 3]);
  EXPECT_EQ(four[3], host[2 * 7 + 4]);
  // cudaMemcpyFromArray: 7 floats from (4, 0) on run through row 1 into
  // row 2.
  float seven[7] = {};
  ASSERT_EQ(rt->arrays().arrayCopyLinear(a, 4 * 4, 0, false, seven,
                                         sizeof seven, cudaMemcpyDeviceToHost,
                                         nullptr, "test"),
            cudaSuccess);
  EXPECT_EQ(seven[0], host[4]);
  EXPECT_EQ(seven[1], host[7]);
  EXPECT_EQ(seven[5], host[7 + 4]);
  EXPECT_EQ(seven[6], host[2 * 7]);
  // Device memory into the array and back out to device memory.
  void *dev = nullptr;
  ASSERT_EQ(rt->malloc(&dev, 20 * 4), cudaSuccess);
  std::vector<float> ones(20, 1.5f);
  ASSERT_EQ(rt->memcpy(dev, ones.data(), 80, cudaMemcpyHostToDevice, nullptr,
                       false, false),
            cudaSuccess);
  ASSERT_EQ(rt->arrays().arrayCopy(a, box, true, dev, 20, 4, cudaMemcpyDefault,
                                   nullptr, "test"),
            cudaSuccess);
  ASSERT_EQ(rt->arrays().arrayCopy(a, corner, false, four, 8, 2,
                                   cudaMemcpyDefault, nullptr, "test"),
            cudaSuccess);
  EXPECT_EQ(four[0], 1.5f);

  cudaChannelFormatDesc got{};
  cudaExtent extent{};
  ASSERT_EQ(rt->arrays().arrayInfo(a, &got, &extent, nullptr), cudaSuccess);
  EXPECT_EQ(got.x, 32);
  EXPECT_EQ(extent.width, 5u);
  EXPECT_EQ(extent.height, 4u);
  ASSERT_EQ(rt->arrays().arrayFree(a), cudaSuccess);
  EXPECT_EQ(rt->arrays().arrayFree(a), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

TEST_F(RuntimeArrayTest, LayeredArrayThroughMemcpy3D) {
  cudaChannelFormatDesc f = {8, 8, 0, 0, cudaChannelFormatKindUnsigned};
  cudaArray_t a = nullptr;
  ASSERT_EQ(
      rt->arrays().arrayCreate(&a, &f, cudaExtent{3, 2, 4}, cudaArrayLayered),
      cudaSuccess);
  std::vector<uint8_t> host(3 * 2 * 2 * 4); // 2-byte elements
  std::iota(host.begin(), host.end(), uint8_t(0));
  cudaMemcpy3DParms up = {};
  up.srcPtr = cudaPitchedPtr{host.data(), 6, 3, 2};
  up.dstArray = a;
  up.extent = cudaExtent{3, 2, 4};
  up.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(rt->memcpy3D(&up, nullptr, false), cudaSuccess);
  // Layer 2, element (1, 1) alone.
  uint8_t two[2] = {};
  cudaMemcpy3DParms down = {};
  down.srcArray = a;
  down.srcPos = cudaPos{1, 1, 2};
  down.dstPtr = cudaPitchedPtr{two, 2, 1, 1};
  down.extent = cudaExtent{1, 1, 1};
  down.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(rt->memcpy3D(&down, nullptr, false), cudaSuccess);
  size_t at = 2 * 12 + 1 * 6 + 1 * 2;
  EXPECT_EQ(two[0], host[at]);
  EXPECT_EQ(two[1], host[at + 1]);
  // Between two arrays (here one and itself): through device memory, to
  // layer 0's element (0, 0).
  cudaMemcpy3DParms both = down;
  both.dstArray = a;
  both.dstPtr = cudaPitchedPtr{};
  EXPECT_EQ(rt->memcpy3D(&both, nullptr, false),
            cudaErrorInvalidMemcpyDirection)
      << "arrays are device memory";
  both.kind = cudaMemcpyDeviceToDevice;
  ASSERT_EQ(rt->memcpy3D(&both, nullptr, false), cudaSuccess);
  down.srcPos = cudaPos{0, 0, 0};
  two[0] = two[1] = 0;
  ASSERT_EQ(rt->memcpy3D(&down, nullptr, false), cudaSuccess);
  EXPECT_NE(host[0], host[at]);
  EXPECT_EQ(two[0], host[at]);
  EXPECT_EQ(two[1], host[at + 1]);
}

// What the runtime refuses before anything is sent: formats arrays cannot
// hold, boxes outside the array, device ranges outside allocations, kinds
// that point the wrong way, unknown arrays.
TEST_F(RuntimeArrayTest, BadArgumentsFailAtTheCall) {
  cudaArray_t a = nullptr;
  cudaChannelFormatDesc three = {8, 8, 8, 0, cudaChannelFormatKindUnsigned};
  EXPECT_EQ(rt->arrays().arrayCreate(&a, &three, cudaExtent{4, 4, 0}, 0),
            cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc mixed = {8, 16, 0, 0, cudaChannelFormatKindUnsigned};
  EXPECT_EQ(rt->arrays().arrayCreate(&a, &mixed, cudaExtent{4, 4, 0}, 0),
            cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc f = {32, 0, 0, 0, cudaChannelFormatKindSigned};
  EXPECT_EQ(rt->arrays().arrayCreate(&a, &f, cudaExtent{0, 4, 0}, 0),
            cudaErrorInvalidValue);
  ASSERT_EQ(rt->arrays().arrayCreate(&a, &f, cudaExtent{4, 4, 0}, 0),
            cudaSuccess);
  int buf[32] = {};
  rc::rt::Runtime::ArrayBox box;
  box.x = 4;
  box.width = 16; // one element past the row
  EXPECT_EQ(rt->arrays().arrayCopy(a, box, true, buf, 16, 1,
                                   cudaMemcpyHostToDevice, nullptr, "test"),
            cudaErrorInvalidValue);
  box.x = 0;
  box.height = 5;
  EXPECT_EQ(rt->arrays().arrayCopy(a, box, true, buf, 16, 5,
                                   cudaMemcpyHostToDevice, nullptr, "test"),
            cudaErrorInvalidValue);
  box.height = 4;
  EXPECT_EQ(rt->arrays().arrayCopy(a, box, true, buf, 8, 4,
                                   cudaMemcpyHostToDevice, nullptr, "test"),
            cudaErrorInvalidPitchValue);
  EXPECT_EQ(rt->arrays().arrayCopy(a, box, true, buf, 16, 4,
                                   cudaMemcpyDeviceToHost, nullptr, "test"),
            cudaErrorInvalidMemcpyDirection);
  void *dev = nullptr;
  ASSERT_EQ(rt->malloc(&dev, 32), cudaSuccess);
  EXPECT_EQ(rt->arrays().arrayCopy(a, box, true, dev, 16, 4,
                                   cudaMemcpyDeviceToDevice, nullptr, "test"),
            cudaErrorInvalidValue)
      << "64 bytes from a 32-byte allocation";
  EXPECT_EQ(rt->arrays().arrayCopy(reinterpret_cast<cudaArray_t>(0x999), box,
                                   true, buf, 16, 4, cudaMemcpyHostToDevice,
                                   nullptr, "test"),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess) << "nothing bad was sent";
}

// Texture and surface objects: handles from the server, checked resources.
TEST_F(RuntimeArrayTest, TextureAndSurfaceObjects) {
  cudaChannelFormatDesc f = {32, 0, 0, 0, cudaChannelFormatKindFloat};
  cudaArray_t plain = nullptr, writable = nullptr;
  ASSERT_EQ(rt->arrays().arrayCreate(&plain, &f, cudaExtent{8, 8, 0}, 0),
            cudaSuccess);
  ASSERT_EQ(rt->arrays().arrayCreate(&writable, &f, cudaExtent{8, 8, 0},
                                     cudaArraySurfaceLoadStore),
            cudaSuccess);
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = plain;
  cudaTextureDesc tex = {};
  tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
  tex.filterMode = cudaFilterModeLinear;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = 1;
  uint64_t t = 0;
  ASSERT_EQ(rt->arrays().textureCreate(&t, &res, &tex, nullptr, false),
            cudaSuccess);
  EXPECT_NE(t, 0u);
  uint64_t s = 0;
  EXPECT_EQ(rt->arrays().textureCreate(&s, &res, nullptr, nullptr, true),
            cudaErrorInvalidValue)
      << "a surface needs cudaArraySurfaceLoadStore (the server says so)";
  res.res.array.array = writable;
  ASSERT_EQ(rt->arrays().textureCreate(&s, &res, nullptr, nullptr, true),
            cudaSuccess);
  EXPECT_NE(s, t);

  // Pitch2D over session memory: 8 x 8 floats, 64-byte rows.
  void *dev = nullptr;
  ASSERT_EQ(rt->malloc(&dev, 64 * 8), cudaSuccess);
  cudaResourceDesc pitched = {};
  pitched.resType = cudaResourceTypePitch2D;
  pitched.res.pitch2D.devPtr = dev;
  pitched.res.pitch2D.desc = f;
  pitched.res.pitch2D.width = 8;
  pitched.res.pitch2D.height = 8;
  pitched.res.pitch2D.pitchInBytes = 64;
  uint64_t tp = 0;
  ASSERT_EQ(rt->arrays().textureCreate(&tp, &pitched, &tex, nullptr, false),
            cudaSuccess);
  pitched.res.pitch2D.height = 9; // a row past the allocation
  EXPECT_EQ(rt->arrays().textureCreate(&tp, &pitched, &tex, nullptr, false),
            cudaErrorInvalidValue);
  pitched.res.pitch2D.height = 8;
  pitched.res.pitch2D.pitchInBytes = 16; // shorter than a row
  EXPECT_EQ(rt->arrays().textureCreate(&tp, &pitched, &tex, nullptr, false),
            cudaErrorInvalidPitchValue);
  cudaResourceViewDesc view = {};
  EXPECT_EQ(rt->arrays().textureCreate(&tp, &res, &tex, &view, false),
            cudaErrorNotSupported);

  EXPECT_EQ(rt->arrays().textureDestroy(t, true), cudaErrorInvalidValue)
      << "a texture is not a surface";
  EXPECT_EQ(rt->arrays().textureDestroy(t, false), cudaSuccess);
  EXPECT_EQ(rt->arrays().textureDestroy(t, false), cudaErrorInvalidValue);
  EXPECT_EQ(rt->arrays().textureDestroy(s, true), cudaSuccess);
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

// Device printf end to end: what the device prints (the host test device's
// launch hook writes it where the CUDA driver would: stdout, on the
// session's thread) reaches this process's stdout with the reply of the
// next synchronization, in order; never the server's stdout.
TEST_F(RuntimeExtTest, DevicePrintfReachesStdoutAtTheNextSync) {
  backend().onLaunch([](const rc::server::LaunchRecord &r) {
    std::fprintf(stdout, "grid %u says hello\n", r.config.grid[0]);
  });
  void *p = deviceAlloc(256);
  int n = 64;
  void *args[] = {&p, &n};
  testing::internal::CaptureStdout();
  ASSERT_EQ(rt->kernels().launch(m.scaleId, dim3(3), dim3(32), args, 0, nullptr,
                                 false),
            cudaSuccess);
  ASSERT_EQ(rt->kernels().launch(m.scaleId, dim3(4), dim3(32), args, 0, nullptr,
                                 false),
            cudaSuccess);
  std::fflush(stdout);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "")
      << "nothing is printed before the work is synchronized";
  testing::internal::CaptureStdout();
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "grid 3 says hello\ngrid 4 says hello\n");
  backend().onLaunch(nullptr);
}

} // namespace
