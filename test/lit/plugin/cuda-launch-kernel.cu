// cudaLaunchKernel calls naming a kernel (C API with a cast, and the C++
// template wrapper of cuda_runtime.h) are recorded as launch sites, and the
// pass rewrites them (and the device stubs) to __rc_launch_kernel with the
// kernel's ID. A launch through an unknown pointer stays untouched.
// RUN: %clang_cuda_host %gpubin -S -emit-llvm -o %t.ll -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: opt -passes=verify -disable-output %t.ll
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ir %t.ll | FileCheck --check-prefix=DUMP %s
// RUN: FileCheck --check-prefix=IR %s < %t.ll

#include <cuda_runtime.h>

__global__ void ext(int *p) {}
static __global__ void local(int *p) {}

void host(int *p, const void *unknown) {
  void *args[] = {&p};
  cudaLaunchKernel((const void *)ext, dim3(1), dim3(1), args, 0, 0);
  cudaLaunchKernel((const void *)local, dim3(2), dim3(2), args);
  cudaLaunchKernel(unknown, dim3(1), dim3(1), args, 0, 0);
}

// DUMP: kernel _Z3extPi id=[[EXT:[0-9]+]] external
// DUMP-NEXT: param p
// DUMP-NEXT: site cuda-launch-kernel.cu:18:3 cudaLaunchKernel
// DUMP-NEXT: kernel _ZL5localPi id=[[LOCAL:[0-9]+]] internal
// DUMP-NEXT: param p
// DUMP-NEXT: site cuda-launch-kernel.cu:19:3 cudaLaunchKernel
// DUMP-DAG: call __rc_launch_kernel id=[[EXT]] -> _Z3extPi
// DUMP-DAG: call __rc_launch_kernel id=[[EXT]] -> _Z3extPi
// DUMP-DAG: call __rc_launch_kernel id=[[LOCAL]] -> _ZL5localPi
// DUMP-DAG: call __rc_launch_kernel id=[[LOCAL]] -> _ZL5localPi
// DUMP: ir-ids-in-fragment yes

// The stubs launch by ID.
// IR-LABEL: define {{.*}} @_Z18__device_stub__extPi(
// IR-NOT: cudaLaunchKernel
// IR: call {{.*}} @__rc_launch_kernel(i64 5702456278887729543,
// IR-NOT: cudaLaunchKernel
// IR: ret void
// The user's calls in host(): the C API call and the C++ template wrapper's
// call (not inlined at -O0) are rewritten; the unknown pointer is not.
// IR-LABEL: define {{.*}} @_Z4hostPiPKv(
// IR: call {{.*}}i32 @__rc_launch_kernel(i64 5702456278887729543, i64
// IR: call {{.*}}i32 @__rc_launch_kernel(i64 {{-?[0-9]+}}, i64
// IR: call {{.*}}i32 @cudaLaunchKernel(ptr {{.*}}%
// IR: ret void
// IR-LABEL: define internal void @_ZL20__device_stub__localPi(
// IR-NOT: cudaLaunchKernel
// IR: call {{.*}} @__rc_launch_kernel(i64
// IR-NOT: cudaLaunchKernel
// IR: ret void
// Registration of the stubs is kept (the runtime's stub->ID table).
// IR: call i32 @__cudaRegisterFunction(ptr %{{.*}}, ptr @_Z18__device_stub__extPi,
// IR: declare i32 @__rc_launch_kernel(i64, i64, i32, i64, i32, ptr, i64, ptr)
