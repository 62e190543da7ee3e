// ArrayIndexSelectPass: a small local array read once at a run-time index
// (as flash attention reads its per-row maxima at threadIdx.x % 2 after its
// loop) stays in registers: the read becomes selects, and the loop's
// constant-index updates no longer go through local memory. An array also
// written at a run-time index, or one larger than 8 elements, is left to
// local memory.
// RUN: %remote_clangxx -O3 --cuda-gpu-arch=sm_90 --cuda-device-only -S %s -o %t.s
// RUN: FileCheck %s < %t.s
// Plain clang (no plugin): the array lives in local memory.
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -O3 -S %s -o %t.plain.s
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.s

// CHECK-LABEL: .entry _Z10row_maximaPKfPfi(
// CHECK-NOT: .local
// CHECK: selp.f32
// CHECK-NOT: .local
// CHECK: ret;
// CHECK-LABEL: .entry _Z12written_at_iPfi(
// CHECK: .local
// CHECK-LABEL: .entry _Z9too_largePKfPfi(
// CHECK: .local

// PLAIN-LABEL: .entry _Z10row_maximaPKfPfi(
// PLAIN: .local

__global__ void row_maxima(const float *x, float *out, int n) {
  float m[2] = {-1e30f, -1e30f};
  for (int i = 0; i < n; ++i) {
    m[0] = fmaxf(m[0], x[2 * i * blockDim.x + threadIdx.x]);
    m[1] = fmaxf(m[1], x[(2 * i + 1) * blockDim.x + threadIdx.x]);
  }
  out[threadIdx.x] = m[threadIdx.x % 2];
}

// A store at a run-time index: selects cannot stand in for it.
__global__ void written_at_i(float *out, int n) {
  float m[2] = {0.0f, 0.0f};
  for (int i = 0; i < n; ++i)
    m[(threadIdx.x + i) % 2] += float(i);
  out[threadIdx.x] = m[threadIdx.x % 2];
}

// Nine elements: more selects than a local load is worth.
__global__ void too_large(const float *x, float *out, int n) {
  float m[9] = {};
  for (int i = 0; i < n; ++i)
#pragma unroll
    for (int k = 0; k < 9; ++k)
      m[k] += x[i * 9 + k];
  out[threadIdx.x] = m[threadIdx.x % 9];
}
