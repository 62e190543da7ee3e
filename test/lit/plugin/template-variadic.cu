// Variadic kernel templates: the pack is expanded into real parameters, each
// laid out in the buffer in order.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

template <typename... Ts> __global__ void var(int n, Ts... xs) {}

void host(double *d) {
  var<<<1, 1>>>(1);
  var<<<1, 1>>>(1, 'c', d, 2.0f);
}

// CHECK: kernel _Z3varIJEEviDpT_ {{.*}} args_size=4 {{.*}}demangled=void var<>(int)
// CHECK-NEXT: param n [int] off=0 size=4 align=4 Value
// CHECK-NEXT: site template-variadic.cu:10:3 chevron
// CHECK-NEXT: kernel _Z3varIJcPdfEEviDpT_ {{.*}} args_size=20 {{.*}}demangled=void var<char, double*, float>(int, char, double*, float)
// CHECK-NEXT: param n [int] off=0 size=4 align=4 Value
// CHECK-NEXT: param xs [char] off=4 size=1 align=1 Value
// CHECK-NEXT: param xs [double *] off=8 size=8 align=8 Pointer ptrs=0
// CHECK-NEXT: param xs [float] off=16 size=4 align=4 Value
// CHECK-NEXT: site template-variadic.cu:11:3 chevron
