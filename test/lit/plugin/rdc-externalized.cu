// With -fgpu-rdc clang externalizes static kernels/variables under a per-TU
// postfix (from -cuid, or else the file's unique ID and the -D macro names).
// The plugin names them as clang registers them, so the pass's IDs match.
// RUN: %clang_cuda_host %gpubin -fgpu-rdc -S -emit-llvm -o %t.1.ll -fplugin-arg-rcplugin-out=%t.1.rcm %s
// RUN: %manifest_json %t.1.rcm > %t.1.json
// RUN: %dump --json %t.1.json --ir %t.1.ll | FileCheck --check-prefixes=CHECK,NOCUID %s
// RUN: %clang_cuda_host %gpubin -fgpu-rdc -DFOO=1 -S -emit-llvm -o %t.2.ll -fplugin-arg-rcplugin-out=%t.2.rcm %s
// RUN: %manifest_json %t.2.rcm > %t.2.json
// RUN: %dump --json %t.2.json --ir %t.2.ll | FileCheck --check-prefixes=CHECK,NOCUID %s
// RUN: %clang_cuda_host %gpubin -fgpu-rdc -Xclang -cuid=abc123 -S -emit-llvm -o %t.3.ll -fplugin-arg-rcplugin-out=%t.3.rcm %s
// RUN: %manifest_json %t.3.rcm > %t.3.json
// RUN: %dump --json %t.3.json --ir %t.3.ll | FileCheck --check-prefixes=CHECK,CUID %s

static __global__ void sk(int x) {}
static __device__ int sv;
__global__ void ek(int x) {}
void host() {
  sk<<<1, 1>>>(sv);
  ek<<<1, 1>>>(sv);
}

// CHECK: ids-follow-rule yes
// CHECK: kernel _Z2eki id={{[0-9]+}} external
// NOCUID: kernel _ZL2ski__intern__{{[0-9a-f]+}}_{{[0-9a-f]+}} id={{[0-9]+}} internal {{.*}} demangled=sk(int) [__intern__
// CUID: kernel _ZL2ski__intern__{{[0-9a-f]+}} id={{[0-9]+}} internal {{.*}} demangled=sk(int) [__intern__
// CHECK: var _ZL2sv__static__{{[0-9a-f_]+}} id={{[0-9]+}} internal size=4 Device
// CHECK: call __rc_launch_kernel id={{[0-9]+}} -> _Z2eki
// CHECK: call __rc_launch_kernel id={{[0-9]+}} -> _ZL2ski__intern__
// CHECK: ir-ids-in-fragment yes
