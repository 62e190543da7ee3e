// Every kernel's stub (templates, static, anonymous namespace, extern "C")
// launches by an ID equal to the fragment's ID for that kernel, and no stub
// calls cudaLaunchKernel any more.
// RUN: %clang_cuda_host %gpubin -S -emit-llvm -o %t.ll -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ir %t.ll | FileCheck %s
// RUN: FileCheck --check-prefix=IR %s < %t.ll

template <typename T, int N> __global__ void tk(T *p) {}
static __global__ void sk(int x) {}
namespace { __global__ void ak(double d) {} }
extern "C" __global__ void ck(char c) {}

void host(float *f) {
  tk<float, 2><<<1, 1>>>(f);
  sk<<<1, 1>>>(1);
  ak<<<1, 1>>>(2.0);
  ck<<<1, 1>>>('x');
}

// CHECK: ids-follow-rule yes
// CHECK: kernel _Z2tkIfLi2EEvPT_ id=[[TK:[0-9]+]] external
// CHECK: kernel _ZL2ski id=[[SK:[0-9]+]] internal
// CHECK: kernel _ZN12_GLOBAL__N_12akEd id=[[AK:[0-9]+]] internal
// CHECK: kernel ck id=[[CK:[0-9]+]] external args_size=1 {{.*}} demangled=ck
// CHECK-DAG: call __rc_launch_kernel id=[[TK]] -> _Z2tkIfLi2EEvPT_
// CHECK-DAG: call __rc_launch_kernel id=[[SK]] -> _ZL2ski
// CHECK-DAG: call __rc_launch_kernel id=[[AK]] -> _ZN12_GLOBAL__N_12akEd
// CHECK-DAG: call __rc_launch_kernel id=[[CK]] -> ck
// CHECK: ir-ids-in-fragment yes

// IR-NOT: call {{.*}}@cudaLaunchKernel(
