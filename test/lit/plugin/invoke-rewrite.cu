// A launch inside a try block is an `invoke`: it is rewritten too, keeping
// its normal and unwind destinations.
// RUN: %clang_cuda_host %gpubin -fexceptions -fcxx-exceptions -S -emit-llvm -o %t.ll -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: opt -passes=verify -disable-output %t.ll
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ir %t.ll | FileCheck %s
// RUN: FileCheck --check-prefix=IR %s < %t.ll

#include <cuda_runtime.h>

__global__ void k(int *p) {}
void may_throw();

int host(int *p) {
  void *args[] = {&p};
  try {
    may_throw();
    return cudaLaunchKernel((const void *)k, dim3(1), dim3(1), args, 0, 0);
  } catch (...) {
    return -1;
  }
}

// CHECK: kernel _Z1kPi id=[[K:[0-9]+]]
// CHECK: call __rc_launch_kernel id=[[K]]
// CHECK: ir-ids-in-fragment yes
// IR-LABEL: define {{.*}} @_Z4hostPi(
// IR: invoke {{.*}}i32 @__rc_launch_kernel(i64 {{-?[0-9]+}}, i64
// IR-NEXT: to label %{{.*}} unwind label %{{.*}}
// IR-NOT: @cudaLaunchKernel(
// IR: ret i32
