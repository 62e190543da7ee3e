// Included first in every CUDA compilation by remote-clang (-include): fixes
// for clang 19's CUDA support that would make device code differ from nvcc's.
//
// __reduce_*_sync (sm_80+): clang 19 emits `redux.sync.op dst, mask, value`,
// the mask and the value swapped (LLVM issue 131415, fixed in clang 21), so
// a warp reduction whose value is not a valid member mask traps with
// "illegal instruction" (ggml's warp_reduce_sum<int>, e.g. count_equal).
// clang's header passes (mask, value) to __nvvm_redux_sync_*, whose operands
// clang 19's backend reads as (value, mask); calling the builtins with the
// operands the other way round yields nvcc's instruction. The macros take
// effect in the code that follows, i.e. the whole translation unit.
#ifndef RC_CLANG_CUDA_FIXES_H
#define RC_CLANG_CUDA_FIXES_H

// A system header, as clang's CUDA headers are: a program's -Wall -Werror
// is about its own code.
#pragma clang system_header

// Every object remote-clang compiles needs remote-clang's libcudart, which
// defines this symbol (runtime/src/api/link_marker.cpp). Referenced from the
// object's first function, so that a link with another CUDA's libcudart
// (a Makefile's hard-coded `-L/usr/local/cuda/lib64 -lcudart`) reports it
// first, and its name says what to do, rather than only a bare undefined
// reference to `__rc_launch_kernel' (docs/compatibility.md; test:
// test/lit/driver/foreign-cudart.test).
#if defined(__cplusplus) && !defined(__CUDA_ARCH__)
extern "C" void __rc_requires_its_cudart(void) __asm__(
    "remote-clang: this object needs remote-clang's libcudart, not another "
    "CUDA's: link with remote-clang's nvcc or remote-clang++, or put "
    "-L<remote-clang build>/cuda-overlay/lib64 before other CUDA lib64 "
    "folders (docs/compatibility.md)");
__attribute__((used)) static void __rc_link_check(void) {
  __rc_requires_its_cudart();
}
#endif

#if defined(__clang__) && defined(__CUDA__) && __clang_major__ < 21

#define RC_REDUX_SYNC(name, type, builtin)                                     \
  static __device__ __inline__ type __rc_##name(unsigned __mask,               \
                                                type __value) {                \
    return builtin(__value, __mask);                                           \
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
RC_REDUX_SYNC(reduce_add_sync, unsigned, __nvvm_redux_sync_add)
RC_REDUX_SYNC(reduce_add_sync, int, __nvvm_redux_sync_add)
RC_REDUX_SYNC(reduce_min_sync, unsigned, __nvvm_redux_sync_umin)
RC_REDUX_SYNC(reduce_min_sync, int, __nvvm_redux_sync_min)
RC_REDUX_SYNC(reduce_max_sync, unsigned, __nvvm_redux_sync_umax)
RC_REDUX_SYNC(reduce_max_sync, int, __nvvm_redux_sync_max)
RC_REDUX_SYNC(reduce_and_sync, unsigned, __nvvm_redux_sync_and)
RC_REDUX_SYNC(reduce_or_sync, unsigned, __nvvm_redux_sync_or)
RC_REDUX_SYNC(reduce_xor_sync, unsigned, __nvvm_redux_sync_xor)
#else
// Host pass and older architectures: declared only, as clang's are, so
// that code guarded by __CUDA_ARCH__ checks still parses.
#define RC_REDUX_DECL(name, type)                                              \
  __device__ type __rc_##name(unsigned __mask, type __value);
RC_REDUX_DECL(reduce_add_sync, unsigned)
RC_REDUX_DECL(reduce_add_sync, int)
RC_REDUX_DECL(reduce_min_sync, unsigned)
RC_REDUX_DECL(reduce_min_sync, int)
RC_REDUX_DECL(reduce_max_sync, unsigned)
RC_REDUX_DECL(reduce_max_sync, int)
RC_REDUX_DECL(reduce_and_sync, unsigned)
RC_REDUX_DECL(reduce_or_sync, unsigned)
RC_REDUX_DECL(reduce_xor_sync, unsigned)
#undef RC_REDUX_DECL
#endif
#undef RC_REDUX_SYNC

#define __reduce_add_sync __rc_reduce_add_sync
#define __reduce_min_sync __rc_reduce_min_sync
#define __reduce_max_sync __rc_reduce_max_sync
#define __reduce_and_sync __rc_reduce_and_sync
#define __reduce_or_sync __rc_reduce_or_sync
#define __reduce_xor_sync __rc_reduce_xor_sync

// nvcc's -use_fast_math turns every call of these functions in device code
// into its intrinsic (__expf, __powf, ...: the CUDA C++ Programming Guide,
// "Intrinsic Functions"). clang's approximate transcendentals (what the
// driver maps -use_fast_math to) cover only sinf, cosf, sincosf, logf and
// log2f, so the others stayed libdevice's exact versions: llama.cpp's rope
// kernel had 237 PTX instructions against nvcc's 127 (powf) and ran 12-16 %
// slower. Device pass only: the host keeps the C library's functions, and
// kernel signatures do not change.
#if defined(__CUDA_ARCH__) && defined(__CLANG_GPU_APPROX_TRANSCENDENTALS__)
#define expf(x) __expf(x)
#define exp10f(x) __exp10f(x)
#define powf(x, y) __powf(x, y)
#define log10f(x) __log10f(x)
#define tanf(x) __tanf(x)
#endif

// new and delete in device code: nvcc declares the device operators in
// every translation unit; clang only where <new> is included (its
// cuda_wrappers/new), so `new T` in a kernel of a file that does not include
// it left _Znwm unresolved for ptxas.
#include <new>

// What nvcc's implicit cuda_runtime.h includes for host and device code
// alike (crt/common_functions.h, crt/math_functions.h): <time.h>,
// <string.h>, <stdlib.h> and C++'s <math.h>, whose std:: overloads are
// global there (sqrt(2.0f) is a float, isnan(x) is declared). clang's
// wrapper brings <string.h>, <stdlib.h> and <cmath> only, so a .cu calling
// time() or clock() without including <time.h> stopped at "use of
// undeclared identifier 'time'", and host code calling isnan() at "no
// matching function". Measured with `gcc -E -M` on nvcc's
// preprocessing command (`nvcc --dryrun`) against the pinned headers;
// <stdio.h> and <assert.h> come only in nvcc's device pass, after its
// front end has already refused a printf or assert without them.
#include <math.h>
#include <string.h>
#include <time.h>

// nan() and nanf() in device code: clang's wrappers declare them (static,
// __device__) but define neither, so a call left an unresolved
// `_ZL3nanPKc` for ptxas or nvlink (cuda-samples' interval). libdevice has
// both.
static __device__ __inline__ __attribute__((always_inline)) double
nan(const char *__tagp) {
  return __nv_nan((const signed char *)__tagp);
}
static __device__ __inline__ __attribute__((always_inline)) float
nanf(const char *__tagp) {
  return __nv_nanf((const signed char *)__tagp);
}

// Host min() and max(): CUDA's math_functions.hpp gives nvcc host and
// device overloads of both for every pair of integer and floating types;
// clang's wrappers give device ones only, so host code such as cuda-samples'
// `max(32.0f / cores, 1.0f)` failed with "no matching function for call to
// 'max'". These are nvcc's host overloads (clang keeps its device ones, and
// picks by the side being compiled: a same-side candidate beats a
// wrong-side exact match, so __host__ __device__ code keeps the device ones
// in the device pass). Declared in both passes: the device pass checks host
// functions' calls too.
#define RC_HOST_MINMAX(R, A, B)                                                \
  static inline __host__ R min(const A __a, const B __b) {                     \
    return (R)__a < (R)__b ? (R)__a : (R)__b;                                  \
  }                                                                            \
  static inline __host__ R max(const A __a, const B __b) {                     \
    return (R)__a > (R)__b ? (R)__a : (R)__b;                                  \
  }
RC_HOST_MINMAX(int, int, int)
RC_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
RC_HOST_MINMAX(unsigned int, int, unsigned int)
RC_HOST_MINMAX(unsigned int, unsigned int, int)
RC_HOST_MINMAX(long, long, long)
RC_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
RC_HOST_MINMAX(unsigned long, long, unsigned long)
RC_HOST_MINMAX(unsigned long, unsigned long, long)
RC_HOST_MINMAX(long long, long long, long long)
RC_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
RC_HOST_MINMAX(unsigned long long, long long, unsigned long long)
RC_HOST_MINMAX(unsigned long long, unsigned long long, long long)
// Floating point: fmin/fmax semantics (a NaN loses), as nvcc's.
#define RC_HOST_FMINMAX(R, A, B, fmin, fmax)                                   \
  static inline __host__ R min(const A __a, const B __b) {                     \
    return fmin(__a, __b);                                                     \
  }                                                                            \
  static inline __host__ R max(const A __a, const B __b) {                     \
    return fmax(__a, __b);                                                     \
  }
RC_HOST_FMINMAX(float, float, float, __builtin_fminf, __builtin_fmaxf)
RC_HOST_FMINMAX(double, double, double, __builtin_fmin, __builtin_fmax)
RC_HOST_FMINMAX(double, float, double, __builtin_fmin, __builtin_fmax)
RC_HOST_FMINMAX(double, double, float, __builtin_fmin, __builtin_fmax)
#undef RC_HOST_FMINMAX
#undef RC_HOST_MINMAX

// cooperative_groups::cluster_group (this_cluster()): CUDA's headers
// compile it only for nvcc, NVRTC, or where a compiler says it declares the
// cluster intrinsics; clang 19's headers do (__clusterDim,
// __cluster_map_shared_rank, ...), so cluster groups were missing ("no
// type named 'cluster_group'").
#if !defined(_CG_CLUSTER_INTRINSICS_AVAILABLE)
#define _CG_CLUSTER_INTRINSICS_AVAILABLE
#endif

// __cluster_dims__(x, y, z): clang 19 does not know the attribute and
// dropped it with a warning, so the kernel ran without clusters and its
// cluster's shared-memory accesses went astray. Its backend cannot emit the
// kernel's .reqnctapercluster either; such a kernel is refused where it is
// launched or named, with the way that works: the launch attribute.
#undef __cluster_dims__
#define __cluster_dims__(...)                                                  \
  __attribute__((unavailable(                                                  \
      "__cluster_dims__ needs clang 20 (remote-clang compiles with clang "     \
      "19): launch the kernel with cudaLaunchKernelEx and "                    \
      "cudaLaunchAttributeClusterDimension instead")))

// __launch_bounds__ in the host pass: clang 19 checks the third argument
// (the cluster rank) against the host pass's GPU architecture, "unknown",
// and warned "maxclusterrank requires sm_90 or higher ... ignoring
// 'launch_bounds' attribute" for every such kernel, which -Werror turned
// into a failure nvcc does not have. Launch bounds mean nothing to host
// code: the host pass drops them, the device pass keeps all three.
#if !defined(__CUDA_ARCH__)
#undef __launch_bounds__
#define __launch_bounds__(...)
#endif

// __grid_constant__ kernel parameters: clang 19 does not know the
// attribute (it warned and copied the parameter to local memory wherever
// its address was taken, so a TMA descriptor passed by value was used from
// local memory). Spelled as an annotation, which the plugin's
// GridConstantPass reads: the parameter's address is its own in the
// parameter space, as nvcc makes it. Without the plugin the annotation is
// inert: a copy, as before.
#undef __grid_constant__
#define __grid_constant__ __attribute__((annotate("rc.grid_constant")))

// Surface reads and writes, which clang's headers lack.
#include "rc-cuda-surfaces.h"

// The cache-hinted loads and stores (__ldcs, __stwt, ...), which clang's
// headers lack.
#include "rc-cuda-cache-hints.h"

// The other device functions nvcc declares that clang's headers lack or
// get wrong, and the compiler builtins CUDA's own inline functions call.
#include "rc-cuda-device-functions.h"
#include "rc-cuda-nvcc-builtins.h"

#endif
#endif
