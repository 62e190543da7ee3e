// The CUDA guide's asynchronous copies: cooperative_groups::memcpy_async,
// cuda::memcpy_async with a cuda::barrier and with a cuda::pipeline, the
// pipeline primitives (__pipeline_memcpy_async) and the arrive/wait barrier
// primitives, and the runtime's __nv_memcpy_async_shared_global (a source
// size known only at run time: zero fill).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_awbarrier_primitives.h>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
__global__ void withMemcpyAsync(int *global_out, const int *global_in,
                                size_t size, size_t batch_sz) {
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  extern __shared__ int shared[];
  size_t local_idx = block.thread_rank();
  for (size_t batch = 0; batch < batch_sz; ++batch) {
    size_t block_batch_idx =
        block.group_index().x * block.size() + grid.size() * batch;
    cg::memcpy_async(block, shared, global_in + block_batch_idx,
                     sizeof(int) * block.size());
    cg::wait(block);
    global_out[block_batch_idx + local_idx] = shared[local_idx];
    block.sync();
  }
}
__global__ void withBarrier(int *out, const int *in) {
  auto block = cg::this_thread_block();
  __shared__ int smem[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> barrier;
  if (block.thread_rank() == 0)
    init(&barrier, block.size());
  block.sync();
  cuda::memcpy_async(block, smem, in, sizeof(int) * 256, barrier);
  barrier.arrive_and_wait();
  out[threadIdx.x] = smem[255 - threadIdx.x];
}
__global__ void withPipeline(int *out, const int *in) {
  auto block = cg::this_thread_block();
  __shared__ int smem[2][256];
  constexpr size_t stages = 2;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages>
      state;
  auto pipeline = cuda::make_pipeline(block, &state);
  for (size_t s = 0; s < stages; ++s) {
    pipeline.producer_acquire();
    cuda::memcpy_async(block, smem[s], in + s * 256, sizeof(int) * 256,
                       pipeline);
    pipeline.producer_commit();
  }
  pipeline.consumer_wait();
  out[threadIdx.x] = smem[0][threadIdx.x];
  pipeline.consumer_release();
}
__global__ void withPrimitives(int *out, const int *in) {
  __shared__ int smem[256];
  __pipeline_memcpy_async(&smem[threadIdx.x], &in[threadIdx.x], sizeof(int));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __shared__ __mbarrier_t bar;
  if (threadIdx.x == 0)
    __mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  __mbarrier_token_t token = __mbarrier_arrive(&bar);
  while (!__mbarrier_try_wait(&bar, token, 1000)) {
  }
  out[threadIdx.x] = smem[threadIdx.x];
}
__global__ void zeroFill(int4 *out, const int4 *in, unsigned valid) {
  __shared__ int4 tile[64];
  __nv_memcpy_async_shared_global_16(tile + threadIdx.x, in + threadIdx.x,
                                     threadIdx.x < valid ? 16 : 0);
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}
