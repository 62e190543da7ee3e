// Launches inside host lambdas (plain, generic, nested) are host launches.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

__global__ void k(int v) {}
template <typename T> __global__ void kt(T v) {}

void host() {
  auto l = [](int v) { k<<<1, 1>>>(v); };
  l(1);
  auto g = [](auto v) { kt<<<1, 1>>>(v); };
  g(2.0);
  [] { [] { k<<<2, 2>>>(3); }(); }();
}

// CHECK: kernel _Z1ki
// CHECK-NEXT: param v
// CHECK-NEXT: site launch-lambda.cu:10:24 chevron
// CHECK-NEXT: site launch-lambda.cu:14:13 chevron
// CHECK-NEXT: kernel _Z2ktIdEvT_
// CHECK-NEXT: param v [double]
// CHECK-NEXT: site launch-lambda.cu:12:25 chevron
