// Parameter layouts (offset, size, alignment of every parameter) equal the
// device compiler's kernel parameter declarations in the PTX, for scalars of
// every width, pointers, references, alignas structs, vector types, nested
// and inherited structs, arrays in structs, packs and empty classes.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -S -o %t.s %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ptx %t.s | FileCheck %s

#include <cuda_fp16.h>

struct alignas(16) Vec3 { float x, y, z; };
struct WithPtr { int n; float *p; };
struct Inner { char c; int *p; };
struct Base { short s; };
struct Derived : Base { Inner in; double d[3]; };
struct Empty {};
struct Packed { char a; char b[3]; };
struct Table { int count; float *rows[3]; Inner slots[2]; };

__global__ void scalars(char c, short s, int a, bool b, double d, float *p,
                        long long q, unsigned char uc, __int128 big,
                        _Float16 h, __half hh, int &ref) {}
__global__ void structs(char c, Vec3 v, WithPtr w, float4 f4, double2 d2,
                        Derived der, Empty e, Packed pk, Table t, char tail) {}
template <typename... Ts> __global__ void pack(Ts... xs) {}

void host(int *p) {
  pack<<<1, 1>>>('a', 1.0, Vec3{}, p, short(2), Packed{}, 3.0f);
}

// CHECK: ptx-entries 3 fragment-kernels 3
// CHECK-NEXT: ptx-entries-equal-fragment-kernels yes
// CHECK-NEXT: ptx-param-layouts-match yes
