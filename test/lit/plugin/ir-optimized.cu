// At -O2 the pass still rewrites, and after inlining also the launches made
// through cuda_runtime.h's variadic cudaLaunchKernelEx<> wrapper, whose
// stub argument only becomes a constant after inlining.
// RUN: %clang_cuda_host %gpubin -O2 -S -emit-llvm -o %t.ll -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: opt -passes=verify -disable-output %t.ll
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ir %t.ll | FileCheck %s
// RUN: FileCheck --check-prefix=IR %s < %t.ll

#include <cuda_runtime.h>

__global__ void k(float *x, int n) {}

void host(float *x, int n, cudaStream_t s) {
  k<<<1, 1, 0, s>>>(x, n);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(32);
  cfg.stream = s;
  cudaLaunchKernelEx(&cfg, k, x, n);
}

// CHECK: kernel _Z1kPfi id=[[K:[0-9]+]]
// CHECK: site ir-optimized.cu:15:3 chevron
// CHECK: site ir-optimized.cu:20:3 cudaLaunchKernelEx
// CHECK-DAG: call __rc_launch_kernel id=[[K]] -> _Z1kPfi
// CHECK-DAG: call __rc_launch_kernel_ex id=[[K]] -> _Z1kPfi
// CHECK: ir-ids-in-fragment yes

// IR-NOT: call {{.*}}@cudaLaunchKernel(
// IR-NOT: call {{.*}}@cudaLaunchKernelExC(

// At -O0 the variadic wrapper is not inlined: its cudaLaunchKernelExC sees
// the kernel only as a parameter, so it stays a plain call (the runtime's
// stub->ID table resolves it); the <<<>>> stub is still rewritten.
// RUN: %clang_cuda_host %gpubin -O0 -S -emit-llvm -o %t.O0.ll %s
// RUN: FileCheck --check-prefix=O0 %s < %t.O0.ll
// O0-LABEL: define {{.*}} @_Z16__device_stub__kPfi(
// O0: call {{.*}} @__rc_launch_kernel(i64
// O0: define {{.*}} @_ZL18cudaLaunchKernelExI{{.*}}(
// O0: call {{.*}} @cudaLaunchKernelExC(ptr
