// <<<>>> in device code (dynamic parallelism) cannot be remoted: errors in
// __global__, __device__ and template kernels (once per site), none for the
// host launch.
// RUN: not %clang_cuda_host -fsyntax-only %s 2>&1 | FileCheck %s

__global__ void child(int x) {}
__global__ void parent(int x) { child<<<1, 1>>>(x); }
__device__ void helper(int x) { child<<<1, 1>>>(x); }
template <typename T> __global__ void tparent(T x) { child<<<1, 1>>>(x); }
void host() {
  child<<<1, 1>>>(0);
  tparent<<<1, 1>>>(1);
  tparent<<<1, 1>>>(2L);
}

// CHECK: diag-device-launch.cu:7:33: error: remote-clang: device-side launch of kernel 'child' in 'parent' cannot be remoted (dynamic parallelism is not supported)
// CHECK: diag-device-launch.cu:8:33: error: remote-clang: device-side launch of kernel 'child' in 'helper'
// CHECK: diag-device-launch.cu:9:54: error: remote-clang: device-side launch of kernel 'child' in 'tparent'
// CHECK-NOT: error
// CHECK: 3 errors generated
