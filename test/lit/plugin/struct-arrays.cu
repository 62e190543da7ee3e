// Arrays inside structs: arrays of pointers and arrays of structs holding
// pointers list every element's pointer.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

struct Slot { int id; float *data; };         // 16 bytes, ptr at 8
struct Table {
  int count;          // 0
  float *rows[3];     // 8, 16, 24
  Slot slots[2];      // 32: ptrs at 40, 56
  int plain[5];       // 64
  char flags[2][3];   // 84
};

__global__ void k(Table t) {}

// CHECK: kernel _Z1k5Table {{.*}} args_size=96
// CHECK-NEXT: param t [Table] off=0 size=96 align=8 Aggregate ptrs=8,16,24,40,56{{$}}
