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

#endif
#endif
