// Non-type template parameters (ints, bools, enums) select distinct kernels;
// template template / default arguments follow the same rule.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

enum class Mode { A, B };
template <int N, bool Flag, Mode M = Mode::B>
__global__ void nt(float (*rows)[4]) {}

void host() {
  nt<32, true><<<1, 1>>>(nullptr);
  nt<64, false, Mode::A><<<1, 1>>>(nullptr);
}

// CHECK: kernels-sorted-by-id yes
// CHECK: kernel _Z2ntILi32ELb1EL4Mode1EEvPA4_f {{.*}}demangled=void nt<32, true, (Mode)1>(float (*) [4])
// CHECK-NEXT: param rows [float (*)[4]] off=0 size=8 align=8 Pointer ptrs=0
// CHECK-NEXT: site template-nontype.cu:12:3 chevron
// CHECK-NEXT: kernel _Z2ntILi64ELb0EL4Mode0EEvPA4_f {{.*}}demangled=void nt<64, false, (Mode)0>(float (*) [4])
// CHECK-NEXT: param rows
// CHECK-NEXT: site template-nontype.cu:13:3 chevron
