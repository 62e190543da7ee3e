// The questions only the GPU's driver answers (TextureLinearWidth,
// ClusterOccupancy) on a real GPU (label gpu): rc-server's answers must be
// what libcuda.so.1 itself answers in a context of its own on the same
// device, for the same cubin, formats and launches; where the driver
// refuses (a GPU without clusters), the server's error is the driver's.
// Skipped where libcuda.so.1 or a GPU is missing.
#include "ext_commands.h"
#include "gpu_driver_library.h"
#include "gpu_server_fixture.h"
#include "rc/manifest_file.h"

#include <gtest/gtest.h>

#include <cuda.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace rc::server::test {
namespace {

using namespace rc::server::test::ext;

// The driver calls the comparison needs, from libcuda.so.1 itself.
struct Driver : DriverLibrary {
  CUresult (*linearWidth)(size_t *, CUarray_format, unsigned,
                          CUdevice) = nullptr;
  CUresult (*activeClusters)(int *, CUfunction,
                             const CUlaunchConfig *) = nullptr;
  CUresult (*potentialSize)(int *, CUfunction,
                            const CUlaunchConfig *) = nullptr;

  bool open() {
    return openLibrary() &&
           resolve(linearWidth, "cuDeviceGetTexture1DLinearMaxWidth") &&
           resolve(activeClusters, "cuOccupancyMaxActiveClusters") &&
           resolve(potentialSize, "cuOccupancyMaxPotentialClusterSize");
  }
};

class GpuDriverQueryTest : public GpuServerTest {
protected:
  void SetUp() override {
    GpuServerTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    client = connect();
    ASSERT_TRUE(drv.open()) << "libcuda.so.1 without the calls needed";
    ASSERT_EQ(drv.init(0), CUDA_SUCCESS);
    ASSERT_EQ(drv.deviceGet(&dev, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv.retain(&ctx, dev), CUDA_SUCCESS);
    ASSERT_EQ(drv.push(ctx), CUDA_SUCCESS);
  }
  void TearDown() override {
    if (ctx) {
      drv.pop(&ctx);
      drv.release(dev);
    }
  }
  // The server's answer (Result.addr), or its error code in *code.
  uint64_t ask(const Cmd &cmd, int *code, std::string *message) {
    last = client.roundTrip(batch(++seq, {cmd}));
    const wire::BatchReply *br = asBatchReply(last);
    *code = -1;
    if (!br)
      return 0;
    if (br->errors() && br->errors()->size()) {
      *code = br->errors()->Get(0)->code();
      *message = br->errors()->Get(0)->message()->str();
      return 0;
    }
    const wire::Result *r = resultAt(br, 0);
    *code = r ? 0 : -1;
    return r ? r->addr() : 0;
  }

  MemClient client;
  Driver drv;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  Bytes last;
  uint64_t seq = 0;
};

TEST_F(GpuDriverQueryTest, TextureLinearWidthIsTheDriversForEveryFormat) {
  struct Format {
    CUarray_format driver;
    int bits, kind; // cudaChannelFormatKind
  };
  const Format formats[] = {{CU_AD_FORMAT_UNSIGNED_INT8, 8, 1},
                            {CU_AD_FORMAT_UNSIGNED_INT16, 16, 1},
                            {CU_AD_FORMAT_UNSIGNED_INT32, 32, 1},
                            {CU_AD_FORMAT_SIGNED_INT8, 8, 0},
                            {CU_AD_FORMAT_SIGNED_INT16, 16, 0},
                            {CU_AD_FORMAT_SIGNED_INT32, 32, 0},
                            {CU_AD_FORMAT_HALF, 16, 2},
                            {CU_AD_FORMAT_FLOAT, 32, 2}};
  int compared = 0;
  for (const Format &f : formats)
    for (unsigned channels : {1u, 2u, 4u}) {
      size_t want = 0;
      ASSERT_EQ(drv.linearWidth(&want, f.driver, channels, dev), CUDA_SUCCESS);
      int b = f.bits;
      Cmd cmd =
          entry<wire::TextureLinearWidth>([&](fb::FlatBufferBuilder &fbb) {
            wire::ChannelFormat format(b, channels > 1 ? b : 0,
                                       channels > 2 ? b : 0,
                                       channels > 2 ? b : 0, f.kind);
            return wire::CreateTextureLinearWidth(fbb, 0, &format);
          });
      int code = 0;
      std::string why;
      uint64_t got = ask(cmd, &code, &why);
      ASSERT_EQ(code, 0) << why;
      EXPECT_EQ(got, want) << f.bits << "-bit kind " << f.kind << " x "
                           << channels;
      ++compared;
    }
  EXPECT_EQ(compared, 24);
}

TEST_F(GpuDriverQueryTest, ClusterOccupancyIsTheDriversForTheSameKernel) {
  std::vector<uint8_t> fatbin;
  std::string err;
  const char *env = std::getenv("RC_TEST_FATBIN");
  ASSERT_TRUE(readFile(env ? env : RC_TEST_FATBIN, fatbin, &err)) << err;
  std::vector<uint64_t> image((fatbin.size() + 7) / 8); // aligned loads
  std::memcpy(image.data(), fatbin.data(), fatbin.size());
  CUmodule mod = nullptr;
  ASSERT_EQ(drv.load(&mod, image.data()), CUDA_SUCCESS);
  CUfunction f = nullptr;
  ASSERT_EQ(drv.function(&f, mod, "_Z5scalePfi"), CUDA_SUCCESS);

  int compared = 0;
  for (bool potential : {false, true})
    for (uint32_t cluster : {1u, 2u, 4u, 8u})
      for (uint32_t block : {64u, 256u, 1024u}) {
        CUlaunchAttribute attr = {};
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = cluster;
        attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
        CUlaunchConfig lc = {};
        lc.gridDimX = 64;
        lc.gridDimY = lc.gridDimZ = 1;
        lc.blockDimX = block;
        lc.blockDimY = lc.blockDimZ = 1;
        lc.attrs = &attr;
        lc.numAttrs = 1;
        int want = -1;
        CUresult r = potential ? drv.potentialSize(&want, f, &lc)
                               : drv.activeClusters(&want, f, &lc);
        std::vector<uint32_t> grid = {64, 1, 1}, blk = {block, 1, 1},
                              dim = {cluster, 1, 1};
        Cmd cmd = entry<wire::ClusterOccupancy>([&](fb::FlatBufferBuilder &b) {
          return wire::CreateClusterOccupancyDirect(
              b, g.scale, false, potential, &grid, &blk, 0, &dim, 0);
        });
        int code = 0;
        std::string why;
        uint64_t got = ask(cmd, &code, &why);
        std::string what = std::string(potential ? "potential size"
                                                 : "active "
                                                   "clusters") +
                           ", clusters of " + std::to_string(cluster) +
                           ", blocks of " + std::to_string(block);
        if (r != CUDA_SUCCESS) {
          EXPECT_EQ(code, int(r)) << what << ": the driver's refusal";
        } else {
          ASSERT_EQ(code, 0) << what << ": " << why;
          EXPECT_EQ(got, uint64_t(want)) << what;
          EXPECT_GT(want, 0) << what;
        }
        ++compared;
      }
  EXPECT_EQ(compared, 24);
  drv.unload(mod);
}

} // namespace
} // namespace rc::server::test
