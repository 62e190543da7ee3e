// Same input => same fragment bytes (two runs, and from another working
// directory); the buffer carries the RCMF file identifier.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.1.rcm %s
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.2.rcm %s
// RUN: cd %t.dir && %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.3.rcm %s
// RUN: cmp %t.1.rcm %t.2.rcm
// RUN: cmp %t.1.rcm %t.3.rcm
// RUN: od -A n -c -j 4 -N 4 %t.1.rcm | FileCheck --check-prefix=IDENT %s
// IDENT: R C M F

#include <cuda_runtime.h>
template <typename T> __global__ void a(T *p, T v) {}
static __global__ void b(int x) {}
namespace { __global__ void c(double d) {} }
__device__ int v1;
__constant__ float v2[8];
void host(float *f, int *i) {
  a<<<1, 1>>>(f, 1.0f);
  a<<<1, 1>>>(i, 2);
  b<<<1, 1>>>(3);
  c<<<1, 1>>>(4.0);
  cudaLaunchKernel((const void *)b, dim3(1), dim3(1), nullptr, 0, 0);
}
