// Surface references cannot be remoted either.
// RUN: not %clang_cuda_host -fsyntax-only %s 2>&1 | FileCheck %s

template <class T, int dim = 1>
struct __attribute__((device_builtin_surface_type)) surface {
  int fake;
};
surface<void, 2> surf;

// CHECK: diag-surface.cu:8:18: error: remote-clang: surface reference 'surf' cannot be remoted
// CHECK: 1 error generated
