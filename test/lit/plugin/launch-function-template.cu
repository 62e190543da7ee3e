// <<<>>> in function templates and class templates: each instantiation's
// launch names its own kernel specialization; uninstantiated code adds none.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

template <typename T, int N> __global__ void kt(T *p) {}
__global__ void plain(int x) {}

template <typename T> void run(T *p) {
  kt<T, 4><<<1, 1>>>(p);
  plain<<<1, 1>>>(sizeof(T));
}
template <typename T> struct Runner {
  void go(T *p) { kt<T, 8><<<1, 1>>>(p); }
};
template <typename T> void never(T *p) { kt<T, 99><<<1, 1>>>(p); }

void host(float *f, int *i) {
  run(f);
  run(i);
  Runner<int>().go(i);
}

// CHECK: kernel _Z2ktIfLi4EEvPT_
// CHECK-NEXT: param p [float *]
// CHECK-NEXT: site launch-function-template.cu:11:3 chevron
// CHECK-NEXT: kernel _Z2ktIiLi4EEvPT_
// CHECK-NEXT: param p [int *]
// CHECK-NEXT: site launch-function-template.cu:11:3 chevron
// CHECK-NEXT: kernel _Z2ktIiLi8EEvPT_
// CHECK-NEXT: param p [int *]
// CHECK-NEXT: site launch-function-template.cu:15:19 chevron
// CHECK-NEXT: kernel _Z5plaini
// CHECK-NEXT: param x
// CHECK-NEXT: site launch-function-template.cu:12:3 chevron
// CHECK-NOT: Li99E
