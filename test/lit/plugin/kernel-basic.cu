// A plain kernel: device-side mangled name, demangled name, external ID
// (fnv1a64 of the name, no salt) and the parameter buffer layout.
// RUN: %clang_cuda_host -fsyntax-only -fplugin-arg-rcplugin-out=%t.rcm %s
// RUN: %manifest_json %t.rcm | FileCheck %s

__global__ void scale(float *out, const float *in, float f, int n, char c,
                      double d) {}

// CHECK:      "modules": [
// CHECK:        "source": "{{.*}}kernel-basic.cu",
// CHECK-NEXT:   "fatbin_hash": 0,
// CHECK:      "kernels": [
// CHECK:        "id": 6407408391055693124,
// CHECK-NEXT:   "name": "_Z5scalePfPKfficd",
// CHECK-NEXT:   "demangled": "scale(float*, float const*, float, int, char, double)",
// CHECK-NEXT:   "internal": false,
// CHECK-NEXT:   "module_index": 0,
// CHECK:        "name": "out",
// CHECK-NEXT:   "type": "float *",
// CHECK-NEXT:   "offset": 0,
// CHECK-NEXT:   "size": 8,
// CHECK-NEXT:   "align": 8,
// CHECK-NEXT:   "kind": "Pointer",
// CHECK-NEXT:   "pointer_offsets": [
// CHECK-NEXT:     0
// CHECK:        "name": "in",
// CHECK:        "offset": 8,
// CHECK:        "kind": "Pointer",
// CHECK:        "name": "f",
// CHECK-NEXT:   "type": "float",
// CHECK-NEXT:   "offset": 16,
// CHECK-NEXT:   "size": 4,
// CHECK-NEXT:   "align": 4,
// CHECK-NEXT:   "kind": "Value",
// CHECK:        "name": "n",
// CHECK:        "offset": 20,
// CHECK:        "name": "c",
// CHECK:        "offset": 24,
// CHECK-NEXT:   "size": 1,
// CHECK:        "name": "d",
// CHECK:        "offset": 32,
// CHECK-NEXT:   "size": 8,
// CHECK:        "args_size": 40,
// CHECK-NEXT:   "launch_sites": [
// CHECK-EMPTY:
// CHECK-NEXT:   ]
