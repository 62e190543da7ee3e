// The names the plugin computes in the host compile are exactly the device
// compile's symbols: the PTX's .entry set equals the fragment's kernels and
// every fragment variable is a PTX global (cuModuleGetFunction/GetGlobal
// will find them).
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -S -o %t.s %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ptx %t.s | FileCheck %s

template <typename T, int N> __global__ void tk(T *p) { p[0] = N; }
template <typename... Ts> __global__ void vk(Ts... xs) {}
template <typename F> __global__ void lk(F f, int *o) { *o = f(2); }
static __global__ void sk(int *p) { *p = 1; }
namespace {
__global__ void ak(int *p) { *p = 2; }
__device__ int anon_var;
} // namespace
namespace outer { namespace inner {
struct S { int *p; };
__global__ void nk(S s) { *s.p = 3; }
__constant__ int cvar[4];
} }
extern "C" __global__ void ck(int *p) {}
__device__ float gvar;
static __device__ int svar;

void host(int *p, float *f) {
  tk<float, 3><<<1, 1>>>(f);
  tk<int, 7><<<1, 1>>>(p);
  vk<<<1, 1>>>(1, 2.0, p);
  lk<<<1, 1>>>([] __device__(int x) { return x + svar + anon_var; }, p);
}

// CHECK: ptx-entries 8 fragment-kernels 8
// CHECK-NEXT: ptx-entries-equal-fragment-kernels yes
// CHECK-NEXT: ptx-param-layouts-match yes
// CHECK-NEXT: fragment-variables-in-ptx yes
