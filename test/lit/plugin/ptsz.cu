// With the per-thread default stream, clang's stubs call
// cudaLaunchKernel_ptsz; the pass maps it to __rc_launch_kernel_ptsz.
// RUN: %clang_cuda_host %gpubin -Xclang -fgpu-default-stream=per-thread -S -emit-llvm -o %t.ll -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ir %t.ll | FileCheck %s
// RUN: FileCheck --check-prefix=IR %s < %t.ll

__global__ void k(int v) {}
void host() { k<<<1, 1>>>(3); }

// CHECK: kernel _Z1ki id=[[K:[0-9]+]]
// CHECK: call __rc_launch_kernel_ptsz id=[[K]] -> _Z1ki
// CHECK: ir-ids-in-fragment yes
// IR: call {{.*}} @__rc_launch_kernel_ptsz(i64
// IR-NOT: call {{.*}}@cudaLaunchKernel_ptsz(
