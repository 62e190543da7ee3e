__constant__ float table[16];
__device__ int counter;
__global__ void use(float *out) { out[0] = table[threadIdx.x] + counter; }
// Internal and unused: optimized out of the cubin, which verify accepts.
static __device__ int unused;
