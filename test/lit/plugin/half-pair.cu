// HalfPairPass: a half2 built from two halves is one 32-bit value made with
// `mov.b32 %r, {%lo, %hi}` in device PTX, as nvcc emits it, not the
// zext/shl/or (or multiplication by 65537) that LLVM's instcombine makes of
// it: ptxas fuses the mov with the two f32 -> f16 conversions before it into
// one F2FP.PACK_AB, and keeps two slow F2F and a PRMT for the integer form.
// RUN: %remote_clangxx -O3 --cuda-gpu-arch=sm_90 --cuda-device-only -S %s -o %t.s
// RUN: FileCheck %s < %t.s
// Plain clang (no plugin) shows what the pass rewrites:
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -O3 -S %s -o %t.plain.s
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.s
#include <cuda_fp16.h>

// CHECK-LABEL: .entry _Z4pairPKfP7__half2(
// CHECK: cvt.rn.f16.f32 [[LO:%rs[0-9]+]]
// CHECK: cvt.rn.f16.f32 [[HI:%rs[0-9]+]]
// CHECK: mov.b32 %r{{[0-9]+}}, {[[LO]], [[HI]]};
// CHECK-NOT: or.b32
// CHECK-LABEL: .entry _Z5splatPKfP7__half2(
// CHECK: cvt.rn.f16.f32 [[H:%rs[0-9]+]]
// CHECK: mov.b32 %r{{[0-9]+}}, {[[H]], [[H]]};
// CHECK-NOT: 65537
// CHECK: ret;

// PLAIN-LABEL: .entry _Z4pairPKfP7__half2(
// PLAIN: shl.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16;
// PLAIN: or.b32
// PLAIN-LABEL: .entry _Z5splatPKfP7__half2(
// PLAIN: mul.lo.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 65537;

__global__ void pair(const float *x, half2 *y) {
  int i = threadIdx.x;
  y[i] = make_half2(x[2 * i], x[2 * i + 1]);
}

__global__ void splat(const float *x, half2 *y) {
  int i = threadIdx.x;
  y[i] = make_half2(x[i], x[i]);
}
