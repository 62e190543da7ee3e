// GlobalNullPass: a pointer that is either into a kernel argument or null
// (flash attention's optional mask) is loaded through as global memory, as
// nvcc does; a pointer that may also be null but points into shared memory
// is left alone (no cast of null to global appears).
// RUN: %remote_clangxx -O3 --cuda-gpu-arch=sm_90 --cuda-device-only -S %s -o %t.s
// RUN: FileCheck %s < %t.s
// Plain clang (no plugin): the argument's load stays generic.
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -O3 -S %s -o %t.plain.s
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.s

// CHECK-LABEL: .entry _Z10masked_sumPKsPKfPfii(
// CHECK: ld.global.u16
// CHECK-LABEL: .entry _Z14shared_or_nullPKfPfii(
// CHECK-NOT: cvta.global
// CHECK: ld.u16
// CHECK-NOT: cvta.global
// CHECK: ret;

// PLAIN-LABEL: .entry _Z10masked_sumPKsPKfPfii(
// PLAIN: ld.u16

__global__ void masked_sum(const short *mask, const float *x, float *out,
                           int n, int use_mask) {
  const short *m = nullptr;
  if (use_mask) {
    m = mask + blockIdx.x * n;
    out[blockIdx.x] = 0.0f;
  }
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i] + (m ? float(m[i]) : 0.0f);
  out[threadIdx.x] = s;
}

__global__ void shared_or_null(const float *x, float *out, int n, int use) {
  __shared__ short tile[256];
  tile[threadIdx.x] = short(x[threadIdx.x]);
  __syncthreads();
  const short *m = nullptr;
  if (use) {
    m = tile + (blockIdx.x % 2);
    out[blockIdx.x] = 0.0f;
  }
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += m ? float(m[i % 128]) : 1.0f;
  out[threadIdx.x] = s;
}
