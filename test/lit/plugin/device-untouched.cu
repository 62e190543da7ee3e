// The plugin leaves device code without inline asm alone (its one device
// pass, ThreadLocalAsmPass, only touches asm: thread-local-asm.cu): same PTX
// with and without it, no fragment written, and device-only code raises no
// diagnostics there.
// RUN: rm -f %t.rcm
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -S -o %t.plain.s %s
// RUN: clang++-19 -x cuda %cuda_flags --cuda-device-only -S -o %t.plugin.s -fplugin=%rc_plugin -fpass-plugin=%rc_plugin -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: cmp %t.plain.s %t.plugin.s
// RUN: not test -e %t.rcm
// RUN: FileCheck %s < %t.plugin.s
// CHECK: .entry _Z1kPf(

__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }
void host(float *p) { k<<<1, 32>>>(p); }
