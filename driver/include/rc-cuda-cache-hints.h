// The cache-hinted loads and stores of CUDA's sm_32_intrinsics.h for clang
// 19, whose CUDA headers have __ldg for every type but none of these:
// __ldcg, __ldca, __ldcs, __ldlu, __ldcv load and __stwb, __stcg, __stcs,
// __stwt store, each for every scalar and vector type nvcc declares them
// for (cuda_fp16.h and cuda_bf16.h define their own for __half and
// __nv_bfloat16). A code base built on them stopped in every file at "no
// matching function for call to '__ldcs'". Included by
// rc-clang-cuda-fixes.h.
//
// Each is the one PTX instruction nvcc emits: ld.global.<hint> or
// st.global.<hint> of the element type, a vector (.v2, .v4) for the vector
// types. The pointer is generic and used as the global address, as nvcc
// does (global memory is identity-mapped in the generic space). The asm
// statements clobber memory: a hinted access is ordered with the thread's
// other accesses to the same memory, as a plain one would be.
#ifndef RC_CUDA_CACHE_HINTS_H
#define RC_CUDA_CACHE_HINTS_H
#pragma clang system_header

#if defined(__CUDA__) && defined(__clang__)

// The instruction's operands for 1, 2 or 4 elements: registers %0.. of the
// value, then the address. V names the register array, P the pointer.
#define RC_HINT_LD1(OP, C, V, P)                                               \
  asm(OP " %0, [%1];" : "=" C(V[0]) : "l"(P) : "memory")
#define RC_HINT_LD2(OP, C, V, P)                                               \
  asm(OP " {%0, %1}, [%2];" : "=" C(V[0]), "=" C(V[1]) : "l"(P) : "memory")
#define RC_HINT_LD4(OP, C, V, P)                                               \
  asm(OP " {%0, %1, %2, %3}, [%4];"                                            \
      : "=" C(V[0]), "=" C(V[1]), "=" C(V[2]), "=" C(V[3])                     \
      : "l"(P)                                                                 \
      : "memory")
#define RC_HINT_ST1(OP, C, V, P)                                               \
  asm volatile(OP " [%0], %1;" ::"l"(P), C(V[0]) : "memory")
#define RC_HINT_ST2(OP, C, V, P)                                               \
  asm volatile(OP " [%0], {%1, %2};" ::"l"(P), C(V[0]), C(V[1]) : "memory")
#define RC_HINT_ST4(OP, C, V, P)                                               \
  asm volatile(OP " [%0], {%1, %2, %3, %4};" ::"l"(P), C(V[0]), C(V[1]),       \
               C(V[2]), C(V[3])                                                \
               : "memory")

// One load and one store function of type T, N elements of type E, held in
// registers of type R with constraint C (8-bit elements travel in 32-bit
// registers, as PTX requires). VEC is "" or ".v2" / ".v4", PTX the element
// type's name in PTX.
#define RC_HINT_LOAD(HINT, T, N, E, R, C, VEC, PTX)                            \
  static __device__ __forceinline__ T __ld##HINT(const T *__ptr) {             \
    R __regs[N];                                                               \
    RC_HINT_LD##N("ld.global." #HINT VEC "." PTX, C, __regs, __ptr);           \
    E __elements[N];                                                           \
    for (int __i = 0; __i < N; ++__i)                                          \
      __elements[__i] = (E)__regs[__i];                                        \
    T __value;                                                                 \
    __builtin_memcpy(&__value, __elements, sizeof __value);                    \
    return __value;                                                            \
  }
#define RC_HINT_STORE(HINT, T, N, E, R, C, VEC, PTX)                           \
  static __device__ __forceinline__ void __st##HINT(T *__ptr, T __value) {     \
    E __elements[N];                                                           \
    __builtin_memcpy(__elements, &__value, sizeof __value);                    \
    R __regs[N];                                                               \
    for (int __i = 0; __i < N; ++__i)                                          \
      __regs[__i] = (R)__elements[__i];                                        \
    RC_HINT_ST##N("st.global." #HINT VEC "." PTX, C, __regs, __ptr);           \
  }

// The five loads and four stores of one type.
#define RC_HINTED(T, N, E, R, C, VEC, PTX)                                     \
  RC_HINT_LOAD(cg, T, N, E, R, C, VEC, PTX)                                    \
  RC_HINT_LOAD(ca, T, N, E, R, C, VEC, PTX)                                    \
  RC_HINT_LOAD(cs, T, N, E, R, C, VEC, PTX)                                    \
  RC_HINT_LOAD(lu, T, N, E, R, C, VEC, PTX)                                    \
  RC_HINT_LOAD(cv, T, N, E, R, C, VEC, PTX)                                    \
  RC_HINT_STORE(wb, T, N, E, R, C, VEC, PTX)                                   \
  RC_HINT_STORE(cg, T, N, E, R, C, VEC, PTX)                                   \
  RC_HINT_STORE(cs, T, N, E, R, C, VEC, PTX)                                   \
  RC_HINT_STORE(wt, T, N, E, R, C, VEC, PTX)

// Scalars (long is 64-bit: CUDA's device code is LP64 on Linux).
RC_HINTED(char, 1, char, int, "r", "", "s8")
RC_HINTED(signed char, 1, signed char, int, "r", "", "s8")
RC_HINTED(unsigned char, 1, unsigned char, unsigned int, "r", "", "u8")
RC_HINTED(short, 1, short, short, "h", "", "s16")
RC_HINTED(unsigned short, 1, unsigned short, unsigned short, "h", "", "u16")
RC_HINTED(int, 1, int, int, "r", "", "s32")
RC_HINTED(unsigned int, 1, unsigned int, unsigned int, "r", "", "u32")
RC_HINTED(long, 1, long, long, "l", "", "s64")
RC_HINTED(unsigned long, 1, unsigned long, unsigned long, "l", "", "u64")
RC_HINTED(long long, 1, long long, long long, "l", "", "s64")
RC_HINTED(unsigned long long, 1, unsigned long long, unsigned long long, "l",
          "", "u64")
RC_HINTED(float, 1, float, float, "f", "", "f32")
RC_HINTED(double, 1, double, double, "d", "", "f64")
// Vectors.
RC_HINTED(char2, 2, char, int, "r", ".v2", "s8")
RC_HINTED(char4, 4, char, int, "r", ".v4", "s8")
RC_HINTED(uchar2, 2, unsigned char, unsigned int, "r", ".v2", "u8")
RC_HINTED(uchar4, 4, unsigned char, unsigned int, "r", ".v4", "u8")
RC_HINTED(short2, 2, short, short, "h", ".v2", "s16")
RC_HINTED(short4, 4, short, short, "h", ".v4", "s16")
RC_HINTED(ushort2, 2, unsigned short, unsigned short, "h", ".v2", "u16")
RC_HINTED(ushort4, 4, unsigned short, unsigned short, "h", ".v4", "u16")
RC_HINTED(int2, 2, int, int, "r", ".v2", "s32")
RC_HINTED(int4, 4, int, int, "r", ".v4", "s32")
RC_HINTED(uint2, 2, unsigned int, unsigned int, "r", ".v2", "u32")
RC_HINTED(uint4, 4, unsigned int, unsigned int, "r", ".v4", "u32")
RC_HINTED(longlong2, 2, long long, long long, "l", ".v2", "s64")
RC_HINTED(ulonglong2, 2, unsigned long long, unsigned long long, "l", ".v2",
          "u64")
RC_HINTED(float2, 2, float, float, "f", ".v2", "f32")
RC_HINTED(float4, 4, float, float, "f", ".v4", "f32")
RC_HINTED(double2, 2, double, double, "d", ".v2", "f64")

#undef RC_HINTED
#undef RC_HINT_STORE
#undef RC_HINT_LOAD
#undef RC_HINT_ST4
#undef RC_HINT_ST2
#undef RC_HINT_ST1
#undef RC_HINT_LD4
#undef RC_HINT_LD2
#undef RC_HINT_LD1

#endif // __CUDA__ && __clang__
#endif // RC_CUDA_CACHE_HINTS_H
