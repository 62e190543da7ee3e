// alignas(16) structs start on a 16-byte boundary in the argument buffer and
// keep their padded size.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

struct alignas(16) Vec3 { float x, y, z; };
struct alignas(16) WithPtr { int n; float *p; };

__global__ void k(int a, Vec3 v, char c, WithPtr w, float4 f4) {}

// CHECK: kernel _Z1ki4Vec3c7WithPtr6float4 {{.*}} args_size=80
// CHECK-NEXT: param a [int] off=0 size=4 align=4 Value
// CHECK-NEXT: param v [Vec3] off=16 size=16 align=16 Aggregate ptrs={{$}}
// CHECK-NEXT: param c [char] off=32 size=1 align=1 Value
// CHECK-NEXT: param w [WithPtr] off=48 size=16 align=16 Aggregate ptrs=8{{$}}
// CHECK-NEXT: param f4 [float4] off=64 size=16 align=16 Aggregate ptrs={{$}}
