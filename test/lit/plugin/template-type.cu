// Every implicit instantiation of a type-templated kernel is a kernel of its
// own; the uninstantiated pattern is not one.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

template <typename T> __global__ void fill(T *p, T v) {}
template <typename T> __global__ void never_used(T v) {}
struct Pair { double a; char b; };

void host(float *f, int *i, Pair *pp) {
  fill<<<1, 1>>>(f, 1.0f);
  fill<int><<<1, 1>>>(i, 2);
  fill<<<1, 1>>>(pp, Pair{});
}

// CHECK: kernels-sorted-by-id yes
// CHECK: kernel _Z4fillI4PairEvPT_S1_ id={{[0-9]+}} external args_size=24 module=0 demangled=void fill<Pair>(Pair*, Pair)
// CHECK-NEXT: param p [Pair *] off=0 size=8 align=8 Pointer ptrs=0
// CHECK-NEXT: param v [Pair] off=8 size=16 align=8 Aggregate ptrs=
// CHECK-NEXT: site template-type.cu:14:3 chevron
// CHECK-NEXT: kernel _Z4fillIfEvPT_S0_ id={{[0-9]+}} external args_size=12 {{.*}}demangled=void fill<float>(float*, float)
// CHECK-NEXT: param p [float *] off=0 size=8 align=8 Pointer ptrs=0
// CHECK-NEXT: param v [float] off=8 size=4 align=4 Value ptrs=
// CHECK-NEXT: site template-type.cu:12:3 chevron
// CHECK-NEXT: kernel _Z4fillIiEvPT_S0_ id={{[0-9]+}} external args_size=12 {{.*}}demangled=void fill<int>(int*, int)
// CHECK-NEXT: param p [int *]
// CHECK-NEXT: param v [int]
// CHECK-NEXT: site template-type.cu:13:3 chevron
// CHECK-NOT: never_used
