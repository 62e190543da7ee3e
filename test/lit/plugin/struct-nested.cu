// Nested structs and base classes (including multiple inheritance) place
// their pointers at the right absolute offsets.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

struct Inner { char c; int *p; };             // p at 8, size 16
struct Middle { int n; Inner in; double *q; }; // in at 8 (p at 16), q at 24; size 32
struct BaseA { long *a; };                    // a at 0
struct BaseB { int x; char *b; };             // b at 8
struct Derived : BaseA, BaseB { Middle m; };  // BaseB at 8 (b at 16), m at 24 (p 40, q 48)

__global__ void k(int pad, Derived d) {}

// CHECK: kernel _Z1ki7Derived {{.*}} args_size=64
// CHECK-NEXT: param pad [int] off=0 size=4 align=4 Value
// CHECK-NEXT: param d [Derived] off=8 size=56 align=8 Aggregate ptrs=0,16,40,48{{$}}
