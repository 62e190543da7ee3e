// Without -fplugin-arg-rcplugin-out the plugin only diagnoses: a clean TU
// compiles (to an object, codegen still runs) and writes nothing; a bad TU
// still fails.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %clang_cuda_host %gpubin -c -o %t.dir/ok.o %s
// RUN: ls %t.dir | FileCheck --check-prefix=FILES %s
// FILES: ok.o
// FILES-NOT: {{.}}
// RUN: llvm-nm-19 %t.dir/ok.o | FileCheck --check-prefix=NM %s
// NM: U __rc_launch_kernel
// NM-NOT: cudaLaunchKernel
// RUN: not %clang_cuda_host -fsyntax-only -DBAD %s 2>&1 | FileCheck --check-prefix=BAD %s
// BAD: error: remote-clang: device-side launch of kernel 'k'

__global__ void k(float *p) {}
#ifdef BAD
__global__ void parent(float *p) { k<<<1, 1>>>(p); }
#endif
void host(float *p) { k<<<1, 32>>>(p); }
