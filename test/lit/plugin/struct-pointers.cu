// By-value structs carrying device pointers: the kind is Aggregate and every
// pointer inside is listed, so the server can see/translate them.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

struct Buffers {
  float *x;   // 0
  int n;      // 8
  double *y;  // 16
  char tag;   // 24
  const void *z; // 32
};
struct NoPtr { int a, b; };

__global__ void k(char c, Buffers b, NoPtr np, int &ref) {}

// CHECK: kernel _Z1kc7Buffers5NoPtrRi {{.*}} args_size=64
// CHECK-NEXT: param c [char] off=0 size=1 align=1 Value ptrs={{$}}
// CHECK-NEXT: param b [Buffers] off=8 size=40 align=8 Aggregate ptrs=0,16,32{{$}}
// CHECK-NEXT: param np [NoPtr] off=48 size=8 align=4 Aggregate ptrs={{$}}
// CHECK-NEXT: param ref [int &] off=56 size=8 align=8 Pointer ptrs=0{{$}}
