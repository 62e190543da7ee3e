// The CUDA guide's cooperative groups: thread blocks, tiles, coalesced and
// partitioned groups, collectives, the grid group of a cooperative launch,
// and cluster groups with distributed shared memory (the cluster size a
// launch attribute).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__device__ int reduceSum(cg::thread_group g, int *temp, int val) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    temp[lane] = val;
    g.sync();
    if (lane < i)
      val += temp[lane + i];
    g.sync();
  }
  return val;
}

__global__ void groups(int *out, const int *in) {
  __shared__ int temp[256];
  cg::thread_block block = cg::this_thread_block();
  int sum = reduceSum(block, temp, in[block.thread_rank()]);
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int reduced = cg::reduce(tile, in[threadIdx.x], cg::plus<int>());
  int scanned = cg::exclusive_scan(tile, 1);
  cg::thread_group tile4 = cg::tiled_partition(block, 4);
  cg::coalesced_group active = cg::coalesced_threads();
  int shuffled = tile.shfl_down(sum, 1) + tile.any(sum > 0) + tile.ballot(sum > 1);
  unsigned matched = tile.match_any(sum);
  auto labeled = cg::labeled_partition(tile, sum & 1);
  auto binary = cg::binary_partition(tile, sum > 3);
  if (block.thread_rank() == 0)
    out[blockIdx.x] = sum + reduced + scanned + tile4.size() + active.size() +
                      shuffled + matched + labeled.size() + binary.size();
  cg::memcpy_async(block, temp, in, sizeof(int) * 256);
  cg::wait(block);
}

__global__ void gridSync(int *out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = 1;
  grid.sync();
  if (grid.thread_rank() == 0)
    out[0] = grid.size();
}

// Distributed shared memory: each block reads its neighbour's.
__global__ void clusterHistogram(int *out) {
  __shared__ int smem[32];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  smem[threadIdx.x] = rank;
  cluster.sync();
  int *neighbour =
      cluster.map_shared_rank(smem, (rank + 1) % cluster.num_blocks());
  out[blockIdx.x * 32 + threadIdx.x] =
      neighbour[threadIdx.x] + cluster.dim_blocks().x;
  cluster.sync();
}

void launch(int *out, const int *in) {
  groups<<<2, 256>>>(out, in);
  void *args[] = {&out};
  cudaLaunchCooperativeKernel((void *)gridSync, 2, 64, args, 0, 0);
  cudaLaunchConfig_t config = {0};
  config.gridDim = 4;
  config.blockDim = 32;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 2;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, clusterHistogram, out);
}
