// Calls whose answer only the GPU's driver knows, asked of rc-server in one
// round trip each (docs/runtime-api.md, "Asked of the server"): the widest
// 1D linear texture of a format, and the cluster occupancy of a kernel.
// Launches with a cluster dimension stay refused (core/kernel_launch.cpp); the
// queries answer what the GPU says.
#include "api/global.h"
#include "protocol_generated.h"

using rc::rt::record;
using rc::rt::runtime;

namespace {

namespace fb = flatbuffers;

// A launch as the wire's ClusterOccupancy carries it.
struct ClusterAsk {
  uint64_t kernel = 0;
  bool moduleFunction = false;
  bool potentialSize = false;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t sharedMem = 0;
  uint32_t cluster[3] = {0, 0, 0}; // 0s: the kernel's own
  int schedulingPolicy = 0;
};

cudaError_t askClusters(const ClusterAsk &q, int *answer) {
  if (!answer)
    return cudaErrorInvalidValue;
  const char *call = q.potentialSize ? "cudaOccupancyMaxPotentialClusterSize"
                                     : "cudaOccupancyMaxActiveClusters";
  uint64_t value = 0;
  cudaError_t err = runtime().libraries().askServer(
      rc::wire::Command::ClusterOccupancy, call,
      [q](fb::FlatBufferBuilder &fbb, uint64_t) {
        auto grid = fbb.CreateVector(q.grid, 3);
        auto block = fbb.CreateVector(q.block, 3);
        auto cluster = fbb.CreateVector(q.cluster, 3);
        return rc::wire::CreateClusterOccupancy(
                   fbb, q.kernel, q.moduleFunction, q.potentialSize, grid,
                   block, q.sharedMem, cluster, q.schedulingPolicy)
            .Union();
      },
      &value);
  if (err == cudaSuccess)
    *answer = int(value);
  return err;
}

// The launch of a cudaLaunchConfig_t: the cluster attributes count, the
// others say nothing of occupancy.
cudaError_t clusterAskOf(const void *func, const cudaLaunchConfig_t *cfg,
                         bool potentialSize, ClusterAsk *q) {
  if (!cfg || (cfg->numAttrs && !cfg->attrs) || cfg->dynamicSmemBytes > ~0u)
    return cudaErrorInvalidValue;
  if (cudaError_t err = runtime().kernels().stubToId(func, &q->kernel))
    return err;
  q->potentialSize = potentialSize;
  const dim3 grid = cfg->gridDim, block = cfg->blockDim;
  const unsigned g[3] = {grid.x, grid.y, grid.z};
  const unsigned b[3] = {block.x, block.y, block.z};
  for (int i = 0; i < 3; ++i)
    q->grid[i] = g[i], q->block[i] = b[i];
  q->sharedMem = uint32_t(cfg->dynamicSmemBytes);
  for (unsigned i = 0; i < cfg->numAttrs; ++i) {
    const cudaLaunchAttribute &a = cfg->attrs[i];
    if (a.id == cudaLaunchAttributeClusterDimension) {
      q->cluster[0] = a.val.clusterDim.x;
      q->cluster[1] = a.val.clusterDim.y;
      q->cluster[2] = a.val.clusterDim.z;
    } else if (a.id == cudaLaunchAttributeClusterSchedulingPolicyPreference) {
      q->schedulingPolicy = int(a.val.clusterSchedulingPolicyPreference);
    }
  }
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t
cudaDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
                                     const cudaChannelFormatDesc *fmtDesc,
                                     int device) {
  if (!maxWidthInElements || !fmtDesc)
    return record(cudaErrorInvalidValue);
  const cudaChannelFormatDesc f = *fmtDesc;
  uint64_t width = 0;
  cudaError_t err = runtime().libraries().askServer(
      rc::wire::Command::TextureLinearWidth,
      "cudaDeviceGetTexture1DLinearMaxWidth",
      [f, device](fb::FlatBufferBuilder &fbb, uint64_t) {
        rc::wire::ChannelFormat format(f.x, f.y, f.z, f.w, int32_t(f.f));
        return rc::wire::CreateTextureLinearWidth(fbb, device, &format).Union();
      },
      &width);
  if (err == cudaSuccess)
    *maxWidthInElements = size_t(width);
  return record(err);
}

cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                           const cudaLaunchConfig_t *config) {
  ClusterAsk q;
  if (cudaError_t err = clusterAskOf(func, config, false, &q))
    return record(err);
  return record(askClusters(q, numClusters));
}

cudaError_t
cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                     const cudaLaunchConfig_t *config) {
  ClusterAsk q;
  if (cudaError_t err = clusterAskOf(func, config, true, &q))
    return record(err);
  return record(askClusters(q, clusterSize));
}

// For librc_cuda: the cluster occupancy of a kernel of a module loaded at
// run time (its ModuleFunction ID), with the launch already unpacked.
__attribute__((visibility("default"))) cudaError_t
__rc_module_cluster_occupancy(int *answer, uint64_t function, int potentialSize,
                              const unsigned grid[3], const unsigned block[3],
                              unsigned sharedMem, const unsigned cluster[3],
                              int schedulingPolicy) {
  ClusterAsk q;
  q.kernel = function;
  q.moduleFunction = true;
  q.potentialSize = potentialSize != 0;
  for (int i = 0; i < 3; ++i)
    q.grid[i] = grid[i], q.block[i] = block[i], q.cluster[i] = cluster[i];
  q.sharedMem = sharedMem;
  q.schedulingPolicy = schedulingPolicy;
  return askClusters(q, answer);
}

} // extern "C"
