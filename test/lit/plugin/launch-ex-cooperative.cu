// cudaLaunchKernelExC (what cudaLaunchKernelEx lowers to) and
// cudaLaunchCooperativeKernel: sites recorded, calls rewritten to
// __rc_launch_kernel_ex(cfg, id, args) / __rc_launch_cooperative_kernel.
// RUN: %clang_cuda_host %gpubin -S -emit-llvm -o %t.ll -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: opt -passes=verify -disable-output %t.ll
// RUN: %manifest_json %t.rcm > %t.json
// RUN: %dump --json %t.json --ir %t.ll | FileCheck --check-prefix=DUMP %s
// RUN: FileCheck --check-prefix=IR %s < %t.ll

#include <cuda_runtime.h>

__global__ void pdl(float *x, int n) {}
__global__ void coop(int *grid_sync) {}

void host(float *x, int *g) {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int n = 4;
  void *args[] = {&x, &n};
  cudaLaunchKernelExC(&cfg, (const void *)pdl, args);
  void *cargs[] = {&g};
  cudaLaunchCooperativeKernel((const void *)coop, dim3(1), dim3(1), cargs, 0, 0);
}

// DUMP: kernel _Z3pdlPfi id=[[PDL:[0-9]+]]
// DUMP: site launch-ex-cooperative.cu:24:3 cudaLaunchKernelEx
// DUMP: kernel _Z4coopPi id=[[COOP:[0-9]+]]
// DUMP: site launch-ex-cooperative.cu:26:3 cudaLaunchCooperativeKernel
// DUMP-DAG: call __rc_launch_kernel_ex id=[[PDL]] -> _Z3pdlPfi
// DUMP-DAG: call __rc_launch_cooperative_kernel id=[[COOP]] -> _Z4coopPi
// DUMP: ir-ids-in-fragment yes

// IR-LABEL: define {{.*}} @_Z4hostPfPi(
// IR: call {{.*}}i32 @__rc_launch_kernel_ex(ptr {{.*}}%{{[0-9a-z]+}}, i64 {{-?[0-9]+}}, ptr
// IR: call {{.*}}i32 @__rc_launch_cooperative_kernel(i64 {{-?[0-9]+}}, i64
// IR-NOT: call {{.*}}@cudaLaunchKernelExC
// IR-NOT: call {{.*}}@cudaLaunchCooperativeKernel(
// IR: ret void
