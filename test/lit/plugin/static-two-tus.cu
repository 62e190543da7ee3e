// `static` and anonymous-namespace kernels of one name in two TUs get the
// same name but different IDs (salted with the TU's real path); an extern
// kernel gets the same ID in both. The TUs here are two copies of one file.
// RUN: rm -rf %t.dir && mkdir -p %t.dir/a %t.dir/b
// RUN: cp %S/Inputs/static-kernel.cu %t.dir/a/tu.cu
// RUN: cp %S/Inputs/static-kernel.cu %t.dir/b/tu.cu
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.a.rcm %t.dir/a/tu.cu
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.b.rcm %t.dir/b/tu.cu
// RUN: %manifest_json %t.a.rcm > %t.a.json
// RUN: %manifest_json %t.b.rcm > %t.b.json
// RUN: %dump --json %t.a.json > %t.a.txt
// RUN: %dump --json %t.b.json > %t.b.txt
// RUN: FileCheck --check-prefix=A %s < %t.a.txt
// RUN: cat %t.a.txt %t.b.txt | FileCheck --check-prefix=BOTH %s

// A: ids-follow-rule yes
// A: kernel _Z13shared_externPi id=6060947175368547231 external
// A: kernel _ZL6helperPi id={{[0-9]+}} internal
// A: kernel _ZN12_GLOBAL__N_14anonEf id={{[0-9]+}} internal
// A: var _ZL10static_var id={{[0-9]+}} internal size=4 Device
// A: var _ZN12_GLOBAL__N_112anon_counterE id={{[0-9]+}} internal size=4 Device

// BOTH: ids-follow-rule yes
// BOTH: kernel _Z13shared_externPi id=[[EA:[0-9]+]] external
// BOTH: kernel _ZL6helperPi id=[[HA:[0-9]+]] internal
// BOTH: kernel _ZN12_GLOBAL__N_14anonEf id=[[AA:[0-9]+]] internal
// BOTH: ids-follow-rule yes
// BOTH: kernel _Z13shared_externPi id=[[EA]] external
// BOTH: kernel _ZL6helperPi id=
// BOTH-NOT: [[HA]]
// BOTH-SAME: internal
// BOTH: kernel _ZN12_GLOBAL__N_14anonEf id=
// BOTH-NOT: [[AA]]
// BOTH-SAME: internal
