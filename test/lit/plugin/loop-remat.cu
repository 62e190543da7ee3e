// LoopRematPass: in a device loop whose live-in values need more registers
// than the budget (384 32-bit registers by default), generic addresses of
// shared memory that LICM hoisted are computed again inside the loop (each
// then costs its 32-bit shared offset's register instead of a 64-bit
// pointer's two). llama.cpp's tensor-core flash attention passes its
// ldmatrix addresses this way; hoisted, they made the kernel spill.
//
// The loops below read ROWS addresses of a shared tile through inline asm
// that takes generic pointers ("l"), as ggml's ldmatrix wrapper does. With
// 256 rows (512 registers of hoisted addresses) the addresses (GEPs on the
// addrspacecast of the tile) are computed in the loop's block; with 16 rows
// the loop is under the budget and they stay where LICM hoisted them, and so
// they do with 256 under --rc-no-loop-remat. (The IR is what the pass
// decides; in PTX, MachineLICM hoists them again where register pressure is
// as low as in the small loop, and leaves them in flash attention's loops.)
// RUN: %remote_clangxx -O3 --cuda-gpu-arch=sm_90 --cuda-device-only -S -emit-llvm -fno-discard-value-names %s -o %t.ll
// RUN: FileCheck %s --check-prefixes=CHECK,REMAT < %t.ll
// RUN: %remote_clangxx --rc-no-loop-remat -O3 --cuda-gpu-arch=sm_90 --cuda-device-only -S -emit-llvm -fno-discard-value-names %s -o %t.off.ll
// RUN: FileCheck %s --check-prefixes=CHECK,OFF < %t.off.ll

// Each loop is one block that branches to itself.
// CHECK-LABEL: define {{.*}}@_Z4rowsILi256EEvPji(
// REMAT: {{^}}[[LOOP:for\.[a-z0-9.]+]]:{{.*}}preds = {{.*}}%[[LOOP]]{{(,|$)}}
// REMAT-COUNT-256: getelementptr {{.*}}addrspacecast (ptr addrspace(3)
// REMAT: br i1 {{.*}}label %[[LOOP]]
// OFF-COUNT-256: getelementptr {{.*}}addrspacecast (ptr addrspace(3)
// OFF: {{^}}[[LOOP:for\.[a-z0-9.]+]]:{{.*}}preds = {{.*}}%[[LOOP]]{{(,|$)}}
// OFF-NOT: addrspace(3)
// OFF: br i1 {{.*}}label %[[LOOP]]
// CHECK-LABEL: define {{.*}}@_Z4rowsILi16EEvPji(
// CHECK-COUNT-16: getelementptr {{.*}}addrspacecast (ptr addrspace(3)
// CHECK: {{^}}[[LOOP:for\.[a-z0-9.]+]]:{{.*}}preds = {{.*}}%[[LOOP]]{{(,|$)}}
// CHECK-NOT: addrspace(3)
// CHECK: br i1 {{.*}}label %[[LOOP]]

template <int ROWS> __global__ void rows(unsigned *out, int n) {
  __shared__ unsigned tile[ROWS * 32];
  tile[threadIdx.x % (ROWS * 32)] = threadIdx.x;
  __syncthreads();
  unsigned acc = 0;
  for (int it = 0; it < n; ++it) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      unsigned v;
      asm volatile("ld.u32 %0, [%1];"
                   : "=r"(v)
                   : "l"(&tile[r * 32 + (threadIdx.x ^ 5)]));
      acc += v * (it + r);
    }
  }
  out[threadIdx.x] = acc;
}

template __global__ void rows<256>(unsigned *, int);
template __global__ void rows<16>(unsigned *, int);
