// Kernel templates instantiated with (extended) __device__ lambdas, as
// nvcc -extended-lambda code does (clang needs no flag): the kernel's closure-type argument makes it
// internal, and the name/ID the plugin computes match the registration the
// pass sees.
// RUN: %clang_cuda_host %gpubin -S -emit-llvm -o %t.ll -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ir %t.ll | FileCheck %s

template <typename F> __global__ void apply(F f, int *out) { *out = f(1); }

void host(int *out) {
  int base = 5;
  apply<<<1, 1>>>([=] __device__(int x) { return x + base; }, out);
  apply<<<1, 1>>>([] __device__(int x) { return 2 * x; }, out);
}

// CHECK: ids-follow-rule yes
// CHECK: kernel _Z5applyIZ4hostPiEUliE0_EvT_S0_ id={{[0-9]+}} internal args_size=16
// CHECK-NEXT: param f [(lambda at {{.*}}lambda-kernel-arg.cu:14:19)] off=0 size=1 align=1 Aggregate
// CHECK-NEXT: param out [int *] off=8 size=8 align=8 Pointer ptrs=0
// CHECK: kernel _Z5applyIZ4hostPiEUliE_EvT_S0_ id={{[0-9]+}} internal args_size=16
// CHECK-NEXT: param f [(lambda at {{.*}}lambda-kernel-arg.cu:13:19)] off=0 size=4 align=4 Aggregate
// CHECK: call __rc_launch_kernel
// CHECK: call __rc_launch_kernel
// CHECK: ir-ids-in-fragment yes
