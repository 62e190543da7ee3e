// A block-wide reduction through a shared-memory tile: the tile's addresses
// are what -fcuda-short-ptr keeps in 32-bit registers.
__global__ void tile_sum(const float *in, float *out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = tile[0];
}
