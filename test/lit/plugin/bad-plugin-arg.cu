// Unknown plugin arguments and unwritable output paths are errors.
// RUN: not %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-bogus=1 %s 2>&1 | FileCheck --check-prefix=ARG %s
// ARG: error: remote-clang: unknown plugin argument 'bogus=1' (expected out=PATH or gcc-narrowing)
// RUN: not %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.nodir/x/y.rcm %s 2>&1 | FileCheck --check-prefix=OUT %s
// OUT: error: remote-clang: cannot write manifest fragment: cannot open '{{.*}}y.rcm' for writing

__global__ void k(int v) {}
