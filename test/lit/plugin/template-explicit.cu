// Explicit instantiation definitions and explicit specializations are
// kernels of the TU; an explicit instantiation declaration (extern template)
// is not (its definition lives in another TU). Names match the PTX.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -S -o %t.s %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ptx %t.s | FileCheck %s

template <typename T> __global__ void tk(T *p) {}
template __global__ void tk<int>(int *);
template <> __global__ void tk<float>(float *q) {}
extern template __global__ void tk<double>(double *);

void host(double *d) { tk<<<1, 1>>>(d); }

// CHECK: kernel _Z2tkIfEvPT_
// CHECK-NEXT: param q [float *]
// CHECK-NEXT: kernel _Z2tkIiEvPT_
// CHECK-NEXT: param p [int *]
// CHECK-NOT: kernel
// CHECK: ptx-entries 2 fragment-kernels 2
// CHECK-NEXT: ptx-entries-equal-fragment-kernels yes
// CHECK-NEXT: ptx-param-layouts-match yes
