// Kernels whose address is taken (function pointers, tables, cudaFunc*
// queries) are recorded as "address-taken": such launches reach the runtime
// through the stub pointer, which its stub->ID table resolves.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

#include <cuda_runtime.h>

template <int D> __global__ void attn(float *q) {}
__global__ void direct(float *q) {}
typedef void (*kernel_t)(float *);

static const kernel_t table[] = {attn<64>, &attn<128>};

void host(float *q, int d) {
  kernel_t fn = d == 64 ? attn<64> : direct;
  fn<<<1, 1>>>(q);
  cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, direct);
  direct<<<1, 1>>>(q);
}

// CHECK: kernel _Z4attnILi128EEvPf
// CHECK-NEXT: param q
// CHECK-NEXT: site address-taken.cu:14:45 address-taken
// CHECK-NEXT: kernel _Z4attnILi64EEvPf
// CHECK-NEXT: param q
// CHECK-NEXT: site address-taken.cu:14:34 address-taken
// CHECK-NEXT: site address-taken.cu:17:27 address-taken
// CHECK-NEXT: kernel _Z6directPf
// CHECK-NEXT: param q
// CHECK-NEXT: site address-taken.cu:17:38 address-taken
// CHECK-NEXT: site address-taken.cu:20:32 address-taken
// CHECK-NEXT: site address-taken.cu:21:3 chevron
// CHECK-NOT: site
