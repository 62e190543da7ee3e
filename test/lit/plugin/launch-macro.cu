// <<<>>> written inside a macro: the site is the macro's expansion point.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

__global__ void k(int v) {}
#define LAUNCH(kern, v) kern<<<1, 32>>>(v)
#define LAUNCH2(v) do { LAUNCH(k, v); } while (0)

void host() {
  LAUNCH(k, 1);
    LAUNCH2(2);
}

// CHECK: kernel _Z1ki
// CHECK-NEXT: param v
// CHECK-NEXT: site launch-macro.cu:11:3 chevron
// CHECK-NEXT: site launch-macro.cu:12:5 chevron
// CHECK-NOT: site
