// Device functions that nvcc's CUDA headers declare and clang 19's lack or
// define differently from nvcc, found by the generated test of every
// declared device function (test/lit/tools/gen_device_surface_test.py,
// test/lit/driver/device-surface.test). Included by rc-clang-cuda-fixes.h,
// after clang's CUDA headers.
//
// Where clang defines a function wrongly, the definition here is an
// overload with an always-true enable_if: of two otherwise equal candidates
// clang prefers the one with more satisfied enable_if conditions, so every
// call picks this one while clang's stays declared (it cannot be removed).
#ifndef RC_CUDA_DEVICE_FUNCTIONS_H
#define RC_CUDA_DEVICE_FUNCTIONS_H
#pragma clang system_header

#if defined(__CUDA__) && defined(__clang__)

#include <new>
#include <time.h>

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgcc-compat"
#define RC_PREFERRED __attribute__((enable_if(1, "")))

// clock(): nvcc declares it __host__ __device__, returning clock_t, and
// reads the 64-bit cycle counter (mov.u64 %clock64: nvcc 13, NVRTC 12.4).
// clang's device clock() returns int from the 32-bit %clock, which wraps
// within seconds, so `clock_t t = clock(); ... clock() - t` differed. The
// host side calls the C library's, under its own name.
extern "C" clock_t __rc_libc_clock(void) __asm__("clock");
static __host__ __device__ __inline__ clock_t clock(void) RC_PREFERRED {
#if defined(__CUDA_ARCH__)
  return (clock_t)__nvvm_read_ptx_sreg_clock64();
#else
  return __rc_libc_clock();
#endif
}

// The C library's classification helpers, which nvcc's math_functions.h
// declares for device code too (long double is double there, as nvcc
// treats it); clang's headers have only the float and double ones it
// needs itself.
static __device__ __forceinline__ int __signbit(double __x) {
  return __builtin_signbit(__x);
}
static __device__ __forceinline__ int __signbitl(long double __x) {
  return __builtin_signbit(__x);
}
static __device__ __forceinline__ int __finitel(long double __x) {
  return __builtin_isfinite(__x);
}
static __device__ __forceinline__ int __isinfl(long double __x) {
  return __builtin_isinf(__x);
}
static __device__ __forceinline__ int __isnanl(long double __x) {
  return __builtin_isnan(__x);
}

// Aligned allocation in device code: __nv_aligned_device_malloc and C++17's
// aligned operator new and delete. The device runtime's allocator has an
// aligned entry point (what nvcc calls); free() releases its blocks.
extern "C" __device__ void *__cuda_syscall_aligned_malloc(size_t __size,
                                                          size_t __align);
static __device__ __forceinline__ void *
__nv_aligned_device_malloc(size_t __size, size_t __align) {
  return __cuda_syscall_aligned_malloc(__size, __align);
}
#if defined(__cpp_aligned_new)
// Inline, as clang's device operator new and delete (cuda_wrappers/new):
// every translation unit has its own copy, the device link needs none.
#pragma clang diagnostic ignored "-Winline-new-delete"
__device__ inline void *operator new(size_t __size, std::align_val_t __align) {
  return __cuda_syscall_aligned_malloc(__size ? __size : 1, (size_t)__align);
}
__device__ inline void *operator new[](size_t __size,
                                       std::align_val_t __align) {
  return ::operator new(__size, __align);
}
__device__ inline void operator delete(void *__ptr, std::align_val_t) noexcept {
  ::free(__ptr);
}
__device__ inline void operator delete[](void *__ptr,
                                         std::align_val_t) noexcept {
  ::free(__ptr);
}
__device__ inline void operator delete(void *__ptr, size_t,
                                       std::align_val_t) noexcept {
  ::free(__ptr);
}
__device__ inline void operator delete[](void *__ptr, size_t,
                                         std::align_val_t) noexcept {
  ::free(__ptr);
}
#endif

// __prof_trigger(n): clang's is a macro that needs a constant (the PTX
// instruction, pmevent, takes an immediate 0..15); nvcc also takes a
// variable, dispatching over the sixteen counters. A constant folds to one
// pmevent.
#undef __prof_trigger
#define RC_PMEVENT(n)                                                          \
  case n:                                                                      \
    asm volatile("pmevent " #n ";" ::: "memory");                              \
    break
static __device__ __forceinline__ void __prof_trigger(int __counter) {
  switch (__counter) {
    RC_PMEVENT(0);
    RC_PMEVENT(1);
    RC_PMEVENT(2);
    RC_PMEVENT(3);
    RC_PMEVENT(4);
    RC_PMEVENT(5);
    RC_PMEVENT(6);
    RC_PMEVENT(7);
    RC_PMEVENT(8);
    RC_PMEVENT(9);
    RC_PMEVENT(10);
    RC_PMEVENT(11);
    RC_PMEVENT(12);
    RC_PMEVENT(13);
    RC_PMEVENT(14);
    RC_PMEVENT(15);
  }
}
#undef RC_PMEVENT

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
// __nv_memcpy_async_shared_global_{4,8,16} (cp.async): clang's call an
// LLVM intrinsic that clang 19's backend cannot select with 32-bit shared
// pointers (-fcuda-short-ptr, which remote-clang uses: "Cannot select:
// intrinsic llvm.nvvm.cp.async.ca.shared.global.4.s"). The same instruction
// as nvcc's, written out: the shared destination as a 32-bit shared-window
// address, the source as a global one, the source size a register.
#define RC_CP_ASYNC(BYTES)                                                     \
  static __device__ __forceinline__ void                                       \
      __rc_memcpy_async_shared_global_##BYTES(void *__dst, const void *__src,  \
                                              unsigned __src_size) {           \
    asm volatile("cp.async.ca.shared.global [%0], [%1], " #BYTES               \
                 ", %2;" ::"r"((unsigned)__cvta_generic_to_shared(__dst)),     \
                 "l"(__cvta_generic_to_global(__src)), "r"(__src_size)         \
                 : "memory");                                                  \
  }
RC_CP_ASYNC(4)
RC_CP_ASYNC(8)
RC_CP_ASYNC(16)
#undef RC_CP_ASYNC
#define __nv_memcpy_async_shared_global_4 __rc_memcpy_async_shared_global_4
#define __nv_memcpy_async_shared_global_8 __rc_memcpy_async_shared_global_8
#define __nv_memcpy_async_shared_global_16 __rc_memcpy_async_shared_global_16
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// atomicAdd on float2 and float4 (sm_90): clang's asm statements are
// neither volatile nor clobber memory, so an atomicAdd whose result goes
// unused (the usual case) was deleted as dead code: the sum never
// happened. These are the same instructions, kept.
#define RC_VECTOR_ATOMIC_ADD(SUFFIX, SCOPE)                                    \
  static __device__ __forceinline__ float2 atomicAdd##SUFFIX(                  \
      float2 *__ptr, float2 __val) RC_PREFERRED {                              \
    float2 __old;                                                              \
    asm volatile("atom" SCOPE ".add.v2.f32 {%0, %1}, [%2], {%3, %4};"          \
                 : "=f"(__old.x), "=f"(__old.y)                                \
                 : "l"(__ptr), "f"(__val.x), "f"(__val.y)                      \
                 : "memory");                                                  \
    return __old;                                                              \
  }                                                                            \
  static __device__ __forceinline__ float4 atomicAdd##SUFFIX(                  \
      float4 *__ptr, float4 __val) RC_PREFERRED {                              \
    float4 __old;                                                              \
    asm volatile(                                                              \
        "atom" SCOPE ".add.v4.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};"   \
        : "=f"(__old.x), "=f"(__old.y), "=f"(__old.z), "=f"(__old.w)           \
        : "l"(__ptr), "f"(__val.x), "f"(__val.y), "f"(__val.z), "f"(__val.w)   \
        : "memory");                                                           \
    return __old;                                                              \
  }
RC_VECTOR_ATOMIC_ADD(, "")
RC_VECTOR_ATOMIC_ADD(_block, ".cta")
RC_VECTOR_ATOMIC_ADD(_system, ".sys")
#undef RC_VECTOR_ATOMIC_ADD

// atomicCAS and atomicExch of any 16-byte, 16-byte aligned, trivially
// copyable type (sm_90's 128-bit atom.cas / atom.exch), which clang's
// headers lack. The value travels as two 64-bit halves through a .b128
// register of the asm statement's own.
template <bool, class _T> struct __rc_atomic16_enable {};
template <class _T> struct __rc_atomic16_enable<true, _T> {
  typedef _T type;
};
#define RC_ATOMIC16_RESULT(_T)                                                 \
  typename __rc_atomic16_enable<sizeof(_T) == 16 && alignof(_T) >= 16 &&       \
                                    __is_trivially_copyable(_T),               \
                                _T>::type
#define RC_ATOMIC16(SUFFIX, SCOPE)                                             \
  template <class _T>                                                          \
  static __device__ __forceinline__ RC_ATOMIC16_RESULT(_T)                     \
      atomicCAS##SUFFIX(_T *__address, _T __compare, _T __val) {               \
    unsigned long long __c[2], __v[2], __old[2];                               \
    __builtin_memcpy(__c, &__compare, 16);                                     \
    __builtin_memcpy(__v, &__val, 16);                                         \
    asm volatile("{\n\t.reg .b128 rc_c, rc_v, rc_old;\n\t"                     \
                 "mov.b128 rc_c, {%2, %3};\n\t"                                \
                 "mov.b128 rc_v, {%4, %5};\n\t"                                \
                 "atom" SCOPE ".cas.b128 rc_old, [%6], rc_c, rc_v;\n\t"        \
                 "mov.b128 {%0, %1}, rc_old;\n\t}"                             \
                 : "=l"(__old[0]), "=l"(__old[1])                              \
                 : "l"(__c[0]), "l"(__c[1]), "l"(__v[0]), "l"(__v[1]),         \
                   "l"(__address)                                              \
                 : "memory");                                                  \
    _T __result;                                                               \
    __builtin_memcpy(&__result, __old, 16);                                    \
    return __result;                                                           \
  }                                                                            \
  template <class _T>                                                          \
  static __device__ __forceinline__ RC_ATOMIC16_RESULT(_T)                     \
      atomicExch##SUFFIX(_T *__address, _T __val) {                            \
    unsigned long long __v[2], __old[2];                                       \
    __builtin_memcpy(__v, &__val, 16);                                         \
    asm volatile("{\n\t.reg .b128 rc_v, rc_old;\n\t"                           \
                 "mov.b128 rc_v, {%2, %3};\n\t"                                \
                 "atom" SCOPE ".exch.b128 rc_old, [%4], rc_v;\n\t"             \
                 "mov.b128 {%0, %1}, rc_old;\n\t}"                             \
                 : "=l"(__old[0]), "=l"(__old[1])                              \
                 : "l"(__v[0]), "l"(__v[1]), "l"(__address)                    \
                 : "memory");                                                  \
    _T __result;                                                               \
    __builtin_memcpy(&__result, __old, 16);                                    \
    return __result;                                                           \
  }
RC_ATOMIC16(, "")
RC_ATOMIC16(_block, ".cta")
RC_ATOMIC16(_system, ".sys")
#undef RC_ATOMIC16
#undef RC_ATOMIC16_RESULT
#endif

#undef RC_PREFERRED
#pragma clang diagnostic pop

#endif // __CUDA__ && __clang__
#endif // RC_CUDA_DEVICE_FUNCTIONS_H
