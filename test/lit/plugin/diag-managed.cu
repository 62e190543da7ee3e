// __managed__ variables cannot be remoted: an error naming the variable, at
// its declaration; no fragment is written.
// RUN: rm -f %t.rcm
// RUN: not %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s 2>&1 | FileCheck %s
// RUN: not test -e %t.rcm

#include <cuda_runtime.h>

__managed__ int flag;
__device__ __managed__ float values[4];
__device__ int fine;

// CHECK: diag-managed.cu:9:17: error: remote-clang: __managed__ variable 'flag' cannot be remoted
// CHECK: diag-managed.cu:10:30: error: remote-clang: __managed__ variable 'values' cannot be remoted
// CHECK-NOT: fine
// CHECK: 2 errors generated
