// A launch's chevrons written apart, as nvcc reads them: the plugin joins
// them as clang reads the file (clang-plugin/src/NvccSyntax.h). Each is a
// launch site at its place on disk; `>> >` that closes templates and
// `operator<< <T>` are left alone.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s
#include <vector>

__global__ void k(int *p) {}
template <class T> __global__ void tk(T *p) {}

struct Stream {};
template <class T> Stream &operator<<(Stream &s, T) { return s; }

void host(int *p, cudaStream_t s) {
  k<< <1, 32>> >(p);
  k << < 1, 32 >> > (p);
  k<</* grid */<1, 32>>/* end */>(p);
  k<<
    <1, 32>>
    >(p);
  k<<<1, 32>> >(p);
  tk<int><< <1, 32>> >(p);
  k<< <dim3(2, 2), 32, 0, s>> >(p);
  std::vector<std::vector<std::vector<int>> > nested;
  Stream out;
  operator<< <int>(out, 1);
}

// CHECK: kernel _Z1kPi
// CHECK-NEXT: param p
// CHECK-NEXT: site launch-split-chevrons.cu:17:3 chevron
// CHECK-NEXT: site launch-split-chevrons.cu:18:3 chevron
// CHECK-NEXT: site launch-split-chevrons.cu:19:3 chevron
// CHECK-NEXT: site launch-split-chevrons.cu:20:3 chevron
// CHECK-NEXT: site launch-split-chevrons.cu:23:3 chevron
// CHECK-NEXT: site launch-split-chevrons.cu:25:3 chevron
// CHECK: kernel _Z2tkIiEvPT_
// CHECK-NEXT: param p
// CHECK-NEXT: site launch-split-chevrons.cu:24:3 chevron
// CHECK-NOT: site
