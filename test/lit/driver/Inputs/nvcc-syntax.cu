// Spellings nvcc accepts and clang 19 refuses on its own; remote-clang's
// plugin rewrites them as the file is read (clang-plugin/src/NvccSyntax.h).
#include <cuda/barrier>

#include "nvcc-syntax.cuh"

__global__ void tiles(float *out, const float *in) {
  // A C++11 attribute after __shared__ (and after extern).
  __shared__ alignas(16) float tile[64];
  extern __shared__ alignas(16) float dynamic[];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  dynamic[threadIdx.x] = tile[63 - threadIdx.x];
  out[threadIdx.x] = dynamic[threadIdx.x];
}

__global__ void stamp(unsigned long long *out, unsigned char *flag) {
  // A PTX special register with one '%', in an asm statement with operands.
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  // Operands without a separating comma.
  unsigned int value = 1;
  asm volatile("st.release.sys.global.u8 [%1], %0;" ::"r"(value) "l"(flag)
               : "memory");
  out[0] = t + clock_of_header();
}

// The CUDA guide's idiom: nvcc runs no constructor or destructor of a
// __shared__ variable; the overlay's cuda::barrier has an empty destructor.
__global__ void synced(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  out[threadIdx.x] = threadIdx.x;
  bar.arrive_and_wait();
}

#ifdef BREAK
// Diagnostics after a rewritten line still point at the file on disk.
__device__ int broken() { return undeclared_name; }
#endif
