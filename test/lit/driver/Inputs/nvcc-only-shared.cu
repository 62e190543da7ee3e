// A __shared__ variable whose type has a (non-trivial) constructor, and
// alignas after a qualifier that follows __shared__ (the plugin moves only
// an attribute right after the memory space).
struct Counter {
  int n;
  __device__ Counter() : n(0) {}
};
__global__ void kernel(float *out) {
  __shared__ Counter counter;
  __shared__ volatile alignas(16) float tile[32];
  tile[threadIdx.x] = counter.n;
  out[threadIdx.x] = tile[threadIdx.x];
}
