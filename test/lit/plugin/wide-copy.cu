// WideCopyPass: a 16-byte aligned copy (an int4 assignment, a memcpy in
// clang's IR) loads and stores 16 bytes at once in device PTX, as nvcc's
// code does, not two 8-byte halves; a copy that may read a small array of
// constants instead (flash attention's out-of-bounds path) reads a constant
// global, so the array leaves local memory and the load stays 16 bytes wide
// (and global: both pointers it picks from are).
// HalfPairPass folds the __float2half of a constant (an asm in CUDA's
// headers) to its bits first, which makes that array constant.
// RUN: %remote_clangxx -O3 --cuda-gpu-arch=sm_90 --cuda-device-only -S %s -o %t.s
// RUN: FileCheck %s < %t.s
// Plain clang (no plugin): 8-byte halves, the array in local memory.
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -O3 -S %s -o %t.plain.s
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.s
#include <cuda_fp16.h>

// CHECK-LABEL: .entry _Z4tilePKiPi(
// CHECK: ld.global.v4.u32
// CHECK: st.shared.v4.u32
// CHECK-NOT: .u64
// CHECK: ret;
// CHECK-LABEL: .entry _Z10tile_or_0sPK6__halfS1_ii(
// CHECK-NOT: .local
// CHECK: ld.global.v4.u32
// CHECK-NOT: .local
// CHECK: ret;
// CHECK-LABEL: .entry _Z9one_and_aP6__half(
// CHECK: mov.u16 %rs{{[0-9]+}}, 15872;
// CHECK-NOT: cvt.rn.f16.f32

// PLAIN-LABEL: .entry _Z4tilePKiPi(
// PLAIN: ld.global.u64
// PLAIN: ld.global.u64
// PLAIN-LABEL: .entry _Z10tile_or_0sPK6__halfS1_ii(
// PLAIN: .local
// PLAIN-LABEL: .entry _Z9one_and_aP6__half(
// PLAIN: cvt.rn.f16.f32

__global__ void tile(const int *g, int *out) {
  __shared__ int4 sm[128];
  sm[threadIdx.x] = reinterpret_cast<const int4 *>(g)[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = sm[127 - threadIdx.x].x;
}

// As ggml's flash attention loads a K/V tile row: past the end, zeros.
__global__ void tile_or_0s(const half *kv, const half *unused, int n,
                           int rows) {
  __shared__ int4 sm[128];
  const half2 zero[4] = {{0.0f, 0.0f}, {0.0f, 0.0f}, {0.0f, 0.0f},
                         {0.0f, 0.0f}};
  for (int r = 0; r < rows; ++r) {
    const void *src = threadIdx.x + r < n ? kv + 8 * (threadIdx.x + r)
                                          : static_cast<const void *>(zero);
    sm[(threadIdx.x + r) % 128] = *static_cast<const int4 *>(src);
  }
  __syncthreads();
  reinterpret_cast<int4 *>(const_cast<half *>(unused))[threadIdx.x] =
      sm[threadIdx.x];
}

__global__ void one_and_a(half *out) { out[threadIdx.x] = __float2half(1.5f); }
