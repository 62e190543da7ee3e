// The calls whose answer only the GPU's driver knows, called as a program
// calls them against an in-process rc-server session on host test
// devices: cudaDeviceGetTexture1DLinearMaxWidth and the cluster occupancy
// queries travel to the server, come back with its device's answer (the
// host test device's model), and its refusals are the calls' errors.
#include "served_api_fixture.h"

#include <channel_descriptor.h>

extern "C" cudaError_t
__rc_module_cluster_occupancy(int *answer, uint64_t function, int potentialSize,
                              const unsigned grid[3], const unsigned block[3],
                              unsigned sharedMem, const unsigned cluster[3],
                              int schedulingPolicy);

namespace rc::test {
namespace {

class ServedQueriesTest : public ServedApiTest {
protected:
  int testDevices() const override { return 2; }
};

TEST_F(ServedQueriesTest, TextureLinearWidthIsTheServersAnswer) {
  uint64_t trips = rc::rt::runtime().roundTrips();
  size_t width = 0;
  cudaChannelFormatDesc uchar1 = cudaCreateChannelDesc<unsigned char>();
  ASSERT_EQ(cudaDeviceGetTexture1DLinearMaxWidth(&width, &uchar1, 0),
            cudaSuccess);
  EXPECT_EQ(width, size_t(1) << 28) << "the host device's elements";
  EXPECT_EQ(rc::rt::runtime().roundTrips(), trips + 1);
  cudaChannelFormatDesc float4 = cudaCreateChannelDesc<::float4>();
  ASSERT_EQ(cudaDeviceGetTexture1DLinearMaxWidth(&width, &float4, 1),
            cudaSuccess);
  EXPECT_EQ(width, size_t(1) << 26) << "2^30 bytes of 16-byte elements";

  cudaChannelFormatDesc three =
      cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  EXPECT_EQ(cudaDeviceGetTexture1DLinearMaxWidth(&width, &three, 0),
            cudaErrorInvalidChannelDescriptor);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidChannelDescriptor);
  EXPECT_EQ(cudaDeviceGetTexture1DLinearMaxWidth(&width, &uchar1, 2),
            cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetTexture1DLinearMaxWidth(nullptr, &uchar1, 0),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetTexture1DLinearMaxWidth(&width, nullptr, 0),
            cudaErrorInvalidValue);
}

cudaLaunchConfig_t launchOf(dim3 grid, dim3 block, cudaLaunchAttribute *attrs,
                            unsigned n) {
  cudaLaunchConfig_t c = {};
  c.gridDim = grid;
  c.blockDim = block;
  c.attrs = attrs;
  c.numAttrs = n;
  return c;
}

TEST_F(ServedQueriesTest, ClusterOccupancyIsTheServersAnswer) {
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t c = launchOf(dim3(16), dim3(128), &attr, 1);
  int clusters = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveClusters(&clusters, stub, &c), cudaSuccess);
  EXPECT_EQ(clusters, 132 / 2) << "the host device: a block per SM";
  attr.val.clusterDim.x = 4;
  ASSERT_EQ(cudaOccupancyMaxActiveClusters(&clusters, stub, &c), cudaSuccess);
  EXPECT_EQ(clusters, 132 / 4);
  int size = 0;
  ASSERT_EQ(cudaOccupancyMaxPotentialClusterSize(&size, stub, &c), cudaSuccess);
  EXPECT_EQ(size, 8);

  // The current device is asked.
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaOccupancyMaxActiveClusters(&clusters, stub, &c), cudaSuccess);
  EXPECT_EQ(clusters, 132 / 4);

  cudaLaunchConfig_t none = launchOf(dim3(16), dim3(128), nullptr, 0);
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(&clusters, stub, &none),
            cudaErrorInvalidClusterSize)
      << "the host device knows no kernel's own cluster dimension";
  attr.val.clusterDim.x = 3;
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(&clusters, stub, &c),
            cudaErrorInvalidClusterSize)
      << "16 blocks are no multiple of 3";
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(&clusters, &clusters, &c),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(nullptr, stub, &c),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyMaxPotentialClusterSize(&size, stub, nullptr),
            cudaErrorInvalidValue);
}

TEST_F(ServedQueriesTest, ClusterOccupancyOfAModuleKernel) {
  const char ptx[] = ".version 8.4\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k()\n{\n  ret;\n}\n";
  uint64_t module = 0, function = 0;
  ASSERT_EQ(rc::rt::runtime().kernels().moduleLoad(ptx, sizeof ptx, &module),
            cudaSuccess);
  ASSERT_EQ(rc::rt::runtime().kernels().moduleFunction(module, "k", &function),
            cudaSuccess);
  const unsigned grid[3] = {8, 1, 1}, block[3] = {64, 1, 1},
                 cluster[3] = {8, 1, 1};
  int answer = 0;
  ASSERT_EQ(__rc_module_cluster_occupancy(&answer, function, 0, grid, block, 0,
                                          cluster, 0),
            cudaSuccess);
  EXPECT_EQ(answer, 132 / 8);
  EXPECT_EQ(__rc_module_cluster_occupancy(&answer, function + 100, 0, grid,
                                          block, 0, cluster, 0),
            cudaErrorInvalidDeviceFunction);
}

} // namespace
} // namespace rc::test
