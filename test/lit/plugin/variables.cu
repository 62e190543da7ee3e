// __device__ and __constant__ variable definitions: device-side name, size,
// kind, linkage; declarations (extern), __shared__, unused internal
// variables and the CUDA headers' builtins are not listed.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json | FileCheck %s

struct Params { float scale; int *table; };

__device__ int counter;
__device__ double arr[16];
__constant__ float coeffs[64];
__constant__ Params params;
namespace ns {
__device__ long nested;
}
static __device__ int used_static;
static __device__ int unused_static;
extern __device__ int declared_only;
template <typename T> __device__ T tvar;

__global__ void k(int *out) {
  __shared__ int tile[32];
  *out = used_static + tvar<int> + tile[0];
}

// CHECK: ids-follow-rule yes
// CHECK-NOT: var
// CHECK: var _Z4tvarIiE id={{[0-9]+}} external size=4 Device demangled=tvar<int>
// CHECK-NEXT: var _ZL11used_static id={{[0-9]+}} internal size=4 Device demangled=used_static
// CHECK-NEXT: var _ZN2ns6nestedE id={{[0-9]+}} external size=8 Device demangled=ns::nested
// CHECK-NEXT: var arr id=[[ARR:[0-9]+]] external size=128 Device demangled=arr
// CHECK-NEXT: var coeffs id={{[0-9]+}} external size=256 Constant demangled=coeffs
// CHECK-NEXT: var counter id={{[0-9]+}} external size=4 Device demangled=counter
// CHECK-NEXT: var params id={{[0-9]+}} external size=16 Constant demangled=params
// CHECK-NOT: var
