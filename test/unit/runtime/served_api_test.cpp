// Runtime calls served since docs/api-coverage.md counts them, called as a
// program calls them, against an in-process rc-server session on host
// test devices: device selection, kernel information, stream IDs and
// attributes, host allocation flags, managed range advice, memory pools,
// copies between arrays and between devices, texture descriptors.
#include "served_api_fixture.h"

#include <channel_descriptor.h>

#include <cstring>
#include <numeric>

namespace rc::test {
namespace {

class ServedTwoDevicesTest : public ServedApiTest {
protected:
  int testDevices() const override { return 2; }
};

// ---- devices ---------------------------------------------------------------

TEST_F(ServedTwoDevicesTest, DevicesAreChosenAndFoundByBusId) {
  cudaDeviceProp want = {};
  want.major = 9;
  int device = -1;
  ASSERT_EQ(cudaChooseDevice(&device, &want), cudaSuccess);
  EXPECT_EQ(device, 0) << "equal devices: the lowest ordinal";
  want.major = 99; // none is that new: the newest comes closest
  ASSERT_EQ(cudaChooseDevice(&device, &want), cudaSuccess);
  EXPECT_GE(device, 0);
  EXPECT_EQ(cudaChooseDevice(nullptr, &want), cudaErrorInvalidValue);

  for (int d = 0; d < 2; ++d) {
    char bus[32];
    ASSERT_EQ(cudaDeviceGetPCIBusId(bus, sizeof bus, d), cudaSuccess);
    int found = -1;
    ASSERT_EQ(cudaDeviceGetByPCIBusId(&found, bus), cudaSuccess) << bus;
    int domain = 0, busId = 0, dev = 0;
    cudaDeviceGetAttribute(&domain, cudaDevAttrPciDomainId, found);
    cudaDeviceGetAttribute(&busId, cudaDevAttrPciBusId, found);
    cudaDeviceGetAttribute(&dev, cudaDevAttrPciDeviceId, found);
    char again[32];
    std::snprintf(again, sizeof again, "%04x:%02x:%02x.0", domain, busId, dev);
    EXPECT_STREQ(again, bus) << "the device found has that bus ID";
  }
  int found = -1;
  EXPECT_EQ(cudaDeviceGetByPCIBusId(&found, "not a bus id"),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetByPCIBusId(&found, "ffff:ff:1f.0"),
            cudaErrorInvalidDevice);
}

TEST_F(ServedTwoDevicesTest, ValidDevicesInitAndFlags) {
  int devices[] = {1, 0};
  ASSERT_EQ(cudaSetValidDevices(devices, 2), cudaSuccess);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 1) << "the first of the list";
  int bad[] = {7};
  EXPECT_EQ(cudaSetValidDevices(bad, 1), cudaErrorInvalidDevice);

  ASSERT_EQ(
      cudaInitDevice(0, cudaDeviceScheduleYield, cudaInitDeviceFlagsAreValid),
      cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  unsigned flags = 0;
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags, unsigned(cudaDeviceScheduleYield));
  EXPECT_EQ(cudaInitDevice(0, 0, 2), cudaErrorInvalidValue);
  EXPECT_EQ(cudaInitDevice(5, 0, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(
      cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield),
      cudaErrorInvalidValue)
      << "two scheduling policies";

  ASSERT_EQ(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1), cudaSuccess);
  cudaFuncCache cache = cudaFuncCachePreferNone;
  ASSERT_EQ(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
  EXPECT_EQ(cache, cudaFuncCachePreferL1);
  cudaSharedMemConfig banks = cudaSharedMemBankSizeDefault;
  ASSERT_EQ(cudaDeviceGetSharedMemConfig(&banks), cudaSuccess);
  EXPECT_EQ(banks, cudaSharedMemBankSizeFourByte);
  EXPECT_EQ(cudaDeviceSetSharedMemConfig(cudaSharedMemConfig(9)),
            cudaErrorInvalidValue);

  double d = 1.5;
  EXPECT_EQ(cudaSetDoubleForDevice(&d), cudaSuccess);
  EXPECT_EQ(cudaSetDoubleForHost(&d), cudaSuccess);
  EXPECT_EQ(d, 1.5);
  EXPECT_EQ(cudaSetDoubleForDevice(nullptr), cudaErrorInvalidValue);
}

// The handshake says whether peers reach each other; how fast, or with
// atomics, it does not know: refused by name, never guessed.
TEST_F(ServedTwoDevicesTest, PeerAttributesAsFarAsTheHandshakeKnows) {
  int v = -1;
  ASSERT_EQ(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 1),
            cudaSuccess);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0),
            cudaErrorInvalidDevice);
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, 0, 1),
            cudaErrorNotSupported);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cudaDeviceGetP2PAttribute"), std::string::npos) << err;
  cudaGetLastError();
}

// ---- kernels ---------------------------------------------------------------

TEST_F(ServedApiTest, KernelNameParametersAndHandles) {
  const char *name = nullptr;
  ASSERT_EQ(cudaFuncGetName(&name, stub), cudaSuccess);
  EXPECT_STREQ(name, kTestKernelName);
  EXPECT_EQ(cudaFuncGetName(&name, &name), cudaErrorInvalidDeviceFunction);

  size_t offset = 0, size = 0;
  ASSERT_EQ(cudaFuncGetParamInfo(stub, 1, &offset, &size), cudaSuccess);
  EXPECT_EQ(offset, 8u);
  EXPECT_EQ(size, 4u);
  ASSERT_EQ(cudaFuncGetParamInfo(stub, 2, &offset, &size), cudaSuccess);
  EXPECT_EQ(offset, 12u);
  EXPECT_EQ(cudaFuncGetParamInfo(stub, 3, &offset, &size),
            cudaErrorInvalidValue);

  cudaFunction_t f = nullptr;
  cudaKernel_t k = nullptr;
  ASSERT_EQ(cudaGetFuncBySymbol(&f, stub), cudaSuccess);
  ASSERT_EQ(cudaGetKernel(&k, stub), cudaSuccess);
  cudaFuncAttributes a;
  EXPECT_EQ(cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(f)),
            cudaSuccess)
      << "the handle names the kernel wherever a kernel is taken";
  EXPECT_EQ(cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(k)),
            cudaSuccess);
  EXPECT_EQ(cudaFuncSetSharedMemConfig(stub, cudaSharedMemBankSizeEightByte),
            cudaSuccess);
  EXPECT_EQ(cudaFuncSetSharedMemConfig(stub, cudaSharedMemConfig(5)),
            cudaErrorInvalidValue);
}

// The answer is the largest amount that still fits the blocks: one byte
// more does not.
TEST_F(ServedApiTest, AvailableDynamicSharedMemoryIsTheLargestThatFits) {
  ASSERT_EQ(cudaFuncSetAttribute(
                stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000),
            cudaSuccess);
  for (int blocks : {1, 2, 3, 5}) {
    size_t smem = 0;
    ASSERT_EQ(
        cudaOccupancyAvailableDynamicSMemPerBlock(&smem, stub, blocks, 128),
        cudaSuccess);
    int fit = 0;
    ASSERT_EQ(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, stub, 128, smem),
        cudaSuccess);
    EXPECT_GE(fit, blocks) << blocks << " blocks, " << smem << " bytes";
    if (smem < 200000) {
      ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, stub, 128,
                                                              smem + 1),
                cudaSuccess);
      EXPECT_LT(fit, blocks) << blocks << " blocks, " << smem + 1 << " bytes";
    }
  }
  size_t smem = 0;
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, stub, 0, 128),
            cudaErrorInvalidValue);
}

// ---- streams
// ------------------------------------------------------------------

TEST_F(ServedApiTest, StreamIdsAndAttributesCopied) {
  cudaStream_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaStreamCreate(&a), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&b), cudaSuccess);
  unsigned long long ida = 0, idb = 0, legacy = 1, own = 0;
  ASSERT_EQ(cudaStreamGetId(a, &ida), cudaSuccess);
  ASSERT_EQ(cudaStreamGetId(b, &idb), cudaSuccess);
  ASSERT_EQ(cudaStreamGetId(nullptr, &legacy), cudaSuccess);
  ASSERT_EQ(cudaStreamGetId(cudaStreamPerThread, &own), cudaSuccess);
  EXPECT_NE(ida, idb);
  EXPECT_EQ(legacy, 0u);
  EXPECT_NE(own, 0u);
  EXPECT_NE(own, ida);
  EXPECT_EQ(cudaStreamGetId(reinterpret_cast<cudaStream_t>(0x999), &ida),
            cudaErrorInvalidResourceHandle);

  cudaLaunchAttributeValue v = {};
  v.syncPolicy = cudaSyncPolicySpin;
  ASSERT_EQ(
      cudaStreamSetAttribute(a, cudaStreamAttributeSynchronizationPolicy, &v),
      cudaSuccess);
  ASSERT_EQ(cudaStreamCopyAttributes(b, a), cudaSuccess);
  cudaLaunchAttributeValue got = {};
  ASSERT_EQ(
      cudaStreamGetAttribute(b, cudaStreamAttributeSynchronizationPolicy, &got),
      cudaSuccess);
  EXPECT_EQ(got.syncPolicy, cudaSyncPolicySpin);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(ServedApiTest, ThreadCaptureModeIsExchanged) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeGlobal) << "the default";
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeRelaxed);
  mode = cudaStreamCaptureMode(7);
  EXPECT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaErrorInvalidValue);
}

// ---- host and managed memory
// ------------------------------------------------------

TEST_F(ServedApiTest, HostAllocFlagsReadBack) {
  void *p = nullptr;
  unsigned want = cudaHostAllocPortable | cudaHostAllocWriteCombined;
  ASSERT_EQ(cudaHostAlloc(&p, 4096, want), cudaSuccess);
  unsigned flags = 0;
  ASSERT_EQ(cudaHostGetFlags(&flags, static_cast<char *>(p) + 100),
            cudaSuccess);
  EXPECT_EQ(flags, want);
  int local = 0;
  EXPECT_EQ(cudaHostGetFlags(&flags, &local), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostAlloc(&p, 64, 0x100), cudaErrorInvalidValue);
  ASSERT_EQ(cudaFreeHost(p), cudaSuccess);
  EXPECT_EQ(cudaHostGetFlags(&flags, p), cudaErrorInvalidValue);
}

TEST_F(ServedApiTest, ManagedRangeAttributesReadTheAdviceBack) {
  char *m = nullptr;
  const size_t n = 8192;
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void **>(&m), n), cudaSuccess);
  ASSERT_EQ(cudaMemAdvise(m, n / 2, cudaMemAdviseSetReadMostly, 0),
            cudaSuccess);
  ASSERT_EQ(cudaMemAdvise(m, n, cudaMemAdviseSetPreferredLocation, 0),
            cudaSuccess);
  ASSERT_EQ(cudaMemAdvise(m, n, cudaMemAdviseSetAccessedBy, cudaCpuDeviceId),
            cudaSuccess);
  int readMostly = -1;
  ASSERT_EQ(cudaMemRangeGetAttribute(&readMostly, sizeof readMostly,
                                     cudaMemRangeAttributeReadMostly, m, n / 2),
            cudaSuccess);
  EXPECT_EQ(readMostly, 1);
  ASSERT_EQ(cudaMemRangeGetAttribute(&readMostly, sizeof readMostly,
                                     cudaMemRangeAttributeReadMostly, m, n),
            cudaSuccess);
  EXPECT_EQ(readMostly, 0) << "only half of it";

  int preferred = -5, prefetched = -5, accessed[3] = {9, 9, 9};
  void *data[] = {&preferred, &prefetched, accessed};
  size_t sizes[] = {sizeof preferred, sizeof prefetched, sizeof accessed};
  cudaMemRangeAttribute attrs[] = {cudaMemRangeAttributePreferredLocation,
                                   cudaMemRangeAttributeLastPrefetchLocation,
                                   cudaMemRangeAttributeAccessedBy};
  ASSERT_EQ(cudaMemRangeGetAttributes(data, sizes, attrs, 3, m, n),
            cudaSuccess);
  EXPECT_EQ(preferred, 0);
  EXPECT_EQ(prefetched, cudaInvalidDeviceId) << "never prefetched";
  EXPECT_EQ(accessed[0], cudaCpuDeviceId);
  EXPECT_EQ(accessed[1], cudaInvalidDeviceId);

  ASSERT_EQ(cudaMemAdvise(m, n, cudaMemAdviseUnsetPreferredLocation, 0),
            cudaSuccess);
  ASSERT_EQ(cudaMemRangeGetAttribute(&preferred, sizeof preferred,
                                     cudaMemRangeAttributePreferredLocation, m,
                                     n),
            cudaSuccess);
  EXPECT_EQ(preferred, cudaInvalidDeviceId);
  void *plain = deviceBuffer(64);
  EXPECT_EQ(cudaMemRangeGetAttribute(&preferred, sizeof preferred,
                                     cudaMemRangeAttributePreferredLocation,
                                     plain, 64),
            cudaErrorInvalidValue)
      << "not managed memory";
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// ---- memory pools
// ------------------------------------------------------------------

TEST_F(ServedTwoDevicesTest, CreatedPoolsCountTheirAllocations) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  void *p = nullptr;
  ASSERT_EQ(cudaMallocFromPoolAsync(&p, 1 << 20, pool, nullptr), cudaSuccess);
  uint64_t used = 0, high = 0;
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used),
            cudaSuccess);
  EXPECT_EQ(used, uint64_t(1) << 20);
  ASSERT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used),
            cudaSuccess);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high),
            cudaSuccess);
  EXPECT_EQ(used, 0u);
  EXPECT_EQ(high, uint64_t(1) << 20);
  uint64_t zero = 0;
  ASSERT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero),
            cudaSuccess);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high),
            cudaSuccess);
  EXPECT_EQ(high, 0u);

  // The device's current pool is what cudaMallocAsync takes from.
  ASSERT_EQ(cudaDeviceSetMemPool(0, pool), cudaSuccess);
  cudaMemPool_t current = nullptr;
  ASSERT_EQ(cudaDeviceGetMemPool(&current, 0), cudaSuccess);
  EXPECT_EQ(current, pool);
  ASSERT_EQ(cudaMallocAsync(&p, 4096, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used),
            cudaSuccess);
  EXPECT_EQ(used, 4096u);
  EXPECT_EQ(cudaDeviceSetMemPool(1, pool), cudaErrorInvalidValue)
      << "a pool of another device";

  // Another device's access goes through peer access.
  cudaMemAccessDesc access = {};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = 1;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  ASSERT_EQ(cudaMemPoolSetAccess(pool, &access, 1), cudaSuccess);
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  ASSERT_EQ(cudaMemPoolGetAccess(&flags, pool, &access.location), cudaSuccess);
  EXPECT_EQ(flags, cudaMemAccessFlagsProtReadWrite);

  ASSERT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
  cudaMemPool_t fallback = nullptr, defaultPool = nullptr;
  ASSERT_EQ(cudaDeviceGetMemPool(&fallback, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&defaultPool, 0), cudaSuccess);
  EXPECT_EQ(fallback, defaultPool) << "the default pool again";
  EXPECT_EQ(cudaMemPoolDestroy(defaultPool), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);

  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaMemPoolCreate(&pool, &props), cudaErrorNotSupported);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("cudaMemPoolCreate"),
            std::string::npos);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaGetLastError();
}

// ---- copies between arrays and between devices
// -------------------------------------

TEST_F(ServedApiTest, CopiesBetweenArraysKeepTheBytes) {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &f, 8, 4), cudaSuccess);
  ASSERT_EQ(cudaMallocArray(&b, &f, 8, 4), cudaSuccess);
  std::vector<float> in(32), out(32, -1);
  std::iota(in.begin(), in.end(), 1.0f);
  ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 0, in.data(), 32, 32, 4,
                                cudaMemcpyHostToDevice),
            cudaSuccess);
  // Rows 1 and 2, columns 2..5, to the top left of b.
  ASSERT_EQ(cudaMemcpy2DArrayToArray(b, 0, 0, a, 8, 1, 16, 2,
                                     cudaMemcpyDeviceToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DFromArray(out.data(), 32, b, 0, 0, 32, 4,
                                  cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x)
      EXPECT_EQ(out[y * 8 + x], in[(y + 1) * 8 + x + 2]) << x << "," << y;

  // 12 bytes from (4 bytes, row 3) of a, to b at byte 28 of row 0: they
  // run on into row 1.
  ASSERT_EQ(cudaMemcpyArrayToArray(b, 28, 0, a, 4, 3, 12, cudaMemcpyDefault),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DFromArray(out.data(), 32, b, 0, 0, 32, 4,
                                  cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(out[7], in[25]);
  EXPECT_EQ(out[8], in[26]);
  EXPECT_EQ(out[9], in[27]);
  EXPECT_EQ(
      cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, 4, 1, cudaMemcpyHostToDevice),
      cudaErrorInvalidMemcpyDirection);

  // cudaMemcpy3D between two arrays: the whole of a into b.
  cudaMemcpy3DParms p = {};
  p.srcArray = a;
  p.dstArray = b;
  p.extent = cudaExtent{8, 4, 1};
  p.kind = cudaMemcpyDeviceToDevice;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DFromArray(out.data(), 32, b, 0, 0, 32, 4,
                                  cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(out, in);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(b), cudaSuccess);
}

TEST_F(ServedApiTest, ThreeDimensionalPeerCopy) {
  std::vector<uint8_t> in(4 * 64), out(4 * 64, 0);
  std::iota(in.begin(), in.end(), uint8_t(0));
  void *src = deviceBuffer(in.size()), *dst = deviceBuffer(in.size());
  ASSERT_EQ(cudaMemcpy(src, in.data(), in.size(), cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemset(dst, 0, in.size()), cudaSuccess);
  cudaMemcpy3DPeerParms p = {};
  p.srcPtr = cudaPitchedPtr{src, 64, 64, 2};
  p.dstPtr = cudaPitchedPtr{dst, 64, 64, 2};
  p.srcPos = cudaPos{8, 0, 0};
  p.extent = cudaExtent{16, 2, 2}; // 16 bytes of each of 4 rows
  ASSERT_EQ(cudaMemcpy3DPeer(&p), cudaSuccess);
  out = readBack(dst, out.size());
  for (int row = 0; row < 4; ++row)
    for (int x = 0; x < 64; ++x)
      EXPECT_EQ(out[row * 64 + x], x < 16 ? in[row * 64 + x + 8] : 0)
          << row << "," << x;
  p.dstDevice = 3;
  EXPECT_EQ(cudaMemcpy3DPeerAsync(&p, nullptr), cudaErrorInvalidDevice);
}

// ---- texture and surface descriptors
// ------------------------------------------------

TEST_F(ServedApiTest, TextureObjectsAnswerTheirDescriptors) {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr, s = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &f, 8, 8), cudaSuccess);
  ASSERT_EQ(cudaMallocArray(&s, &f, 8, 8, cudaArraySurfaceLoadStore),
            cudaSuccess);
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaTextureDesc tex = {};
  tex.addressMode[0] = cudaAddressModeMirror;
  tex.filterMode = cudaFilterModeLinear;
  tex.normalizedCoords = 1;
  cudaTextureObject_t t = 0;
  ASSERT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaSuccess);
  cudaResourceDesc gotRes = {};
  cudaTextureDesc gotTex = {};
  ASSERT_EQ(cudaGetTextureObjectResourceDesc(&gotRes, t), cudaSuccess);
  EXPECT_EQ(gotRes.resType, cudaResourceTypeArray);
  EXPECT_EQ(gotRes.res.array.array, a);
  ASSERT_EQ(cudaGetTextureObjectTextureDesc(&gotTex, t), cudaSuccess);
  EXPECT_EQ(gotTex.addressMode[0], cudaAddressModeMirror);
  EXPECT_EQ(gotTex.filterMode, cudaFilterModeLinear);
  EXPECT_EQ(gotTex.normalizedCoords, 1);
  cudaResourceViewDesc view;
  EXPECT_EQ(cudaGetTextureObjectResourceViewDesc(&view, t),
            cudaErrorInvalidValue)
      << "made without a view";

  res.res.array.array = s;
  cudaSurfaceObject_t surface = 0;
  ASSERT_EQ(cudaCreateSurfaceObject(&surface, &res), cudaSuccess);
  ASSERT_EQ(cudaGetSurfaceObjectResourceDesc(&gotRes, surface), cudaSuccess);
  EXPECT_EQ(gotRes.res.array.array, s);

  ASSERT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  EXPECT_EQ(cudaGetTextureObjectResourceDesc(&gotRes, t),
            cudaErrorInvalidValue);
  ASSERT_EQ(cudaDestroySurfaceObject(surface), cudaSuccess);

  cudaArray_t plane = nullptr;
  EXPECT_EQ(cudaArrayGetPlane(&plane, a, 0), cudaErrorInvalidValue)
      << "single-plane formats have no planes";
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(s), cudaSuccess);
  cudaGetLastError();
}

} // namespace
} // namespace rc::test
