// In device code the pass plugin drops `convergent` from inline asm made only
// of per-thread instructions (ThreadLocalAsmPass) and keeps it on asm that a
// warp or block executes together; unknown instructions keep it too.
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -O0 -S -emit-llvm -o %t.ll -fpass-plugin=%rc_plugin %s
// RUN: FileCheck %s < %t.ll
// Without the plugin every asm is convergent (what the pass is for):
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -O0 -S -emit-llvm -o %t.plain.ll %s
// RUN: FileCheck --check-prefix=PLAIN %s < %t.plain.ll
//
// And the point of it: at -O3 through the driver, a k-loop that calls
// __dp4a (llama.cpp's quantized mat-vec) is runtime-unrolled, as nvcc does:
// more than the one dp4a of a rolled loop.
// RUN: %remote_clangxx -O3 --cuda-gpu-arch=sm_90 --cuda-device-only -S -o %t.s %s
// RUN: FileCheck --check-prefix=PTX %s < %t.s

// CHECK-LABEL: define {{.*}}@_Z8per_lane
// CHECK: asm sideeffect "dp4a.s32.s32 {{.*}} #[[LOCAL:[0-9]+]]
// CHECK: asm "{.reg .f16 low,high;{{.*}}cvt.f32.f16 {{.*}} #[[LOCAL_RN:[0-9]+]]
// CHECK: asm sideeffect "{ .reg .pred %p1;{{.*}}@%p1 add.s32 {{.*}} #[[LOCAL]]
// CHECK-LABEL: define {{.*}}@_Z10collective
// CHECK: asm sideeffect "shfl.sync.bfly.b32 {{.*}} #[[CONV:[0-9]+]]
// CHECK: asm sideeffect "bar.sync 0;{{.*}} #[[CONV]]
// CHECK: asm sideeffect "add.s32 $0, $1, 1; mma.sync{{.*}} #[[CONV]]
// CHECK: asm sideeffect "L1: add.s32 {{.*}} #[[CONV]]
// CHECK: asm sideeffect "not_an_instruction {{.*}} #[[CONV]]
// CHECK: asm sideeffect "add.s32 $0, $0, 1;\09@%p0\09bar.warp.sync\09-1;{{.*}} #[[CONV]]
// CHECK-DAG: attributes #[[LOCAL]] = { nounwind }
// CHECK-DAG: attributes #[[LOCAL_RN]] = { nounwind memory(none) }
// CHECK-DAG: attributes #[[CONV]] = { convergent nounwind }

// PLAIN: asm sideeffect "dp4a.s32.s32 {{.*}} #[[C:[0-9]+]]
// PLAIN: attributes #[[C]] = { convergent nounwind }

// PTX-LABEL: .entry _Z6matvecPKiS0_Pij(
// PTX-COUNT-2: dp4a.s32.s32
// PTX-LABEL: .entry _Z4usesPiPf(

__device__ int per_lane(int a, int b, int c, float *f, unsigned short h) {
  int r;
  asm volatile("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  asm("{.reg .f16 low,high;\n  mov.b32 {low,high},%1;\n  cvt.f32.f16 %0, low;}\n"
      : "=f"(*f) : "r"(a));
  asm volatile("{ .reg .pred %%p1;\n setp.ne.s32 %%p1, %1, 0;\n"
               "@%%p1 add.s32 %0, %0, 1; }" : "+r"(r) : "r"(b));
  return r;
}

__device__ int collective(int v) {
  int r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 31, -1;" : "=r"(r) : "r"(v));
  asm volatile("bar.sync 0;" ::: "memory");
  asm volatile("add.s32 %0, %1, 1; mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 "
               "{%0}, {%1}, {%1}, {%0};" : "+r"(r) : "r"(v));
  asm volatile("L1: add.s32 %0, %0, 1;" : "+r"(r));
  asm volatile("not_an_instruction %0;" : "+r"(r));
  // Tabs, not spaces, after a guard: the guarded warp barrier still counts.
  asm volatile("add.s32 %0, %0, 1;\t@%%p0\tbar.warp.sync\t-1;" : "+r"(r));
  return r;
}

// The shape of ggml's mul_mat_vec_q k-loop: a block count from an unsigned
// column count, each thread striding over the blocks.
__global__ void matvec(const int *x, const int *y, int *out, unsigned ncols) {
  const int nblocks = ncols / 32;
  int sum = 0;
  for (int kb = threadIdx.x / 2; kb < nblocks; kb += 64)
    sum = __dp4a(x[kb], y[kb], sum);
  out[threadIdx.x] = sum;
}

__global__ void uses(int *p, float *f) {
  p[0] = per_lane(p[1], p[2], p[3], f, 0) + collective(p[4]);
}
