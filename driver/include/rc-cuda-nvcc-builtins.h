// nvcc's compiler builtins that CUDA's headers declare (extern "C"
// __device__) and call from their inline functions: nvcc's front end
// supplies their code, clang has none. Where clang 19 includes such a CUDA
// header (crt/sm_70_rt.hpp, sm_20_intrinsics.hpp), its functions called an
// undefined builtin and ptxas stopped at "Unresolved extern function
// '__usAtomicCAS'" (atomicCAS on unsigned short) or '__nv_isGridConstant_impl'
// (__isGridConstant). Code that calls a builtin directly, as CUDA's own
// headers do, compiles too. Each is the public function's PTX, or forwards
// to clang's definition of it. Included by rc-clang-cuda-fixes.h, after
// rc-cuda-device-functions.h.
#ifndef RC_CUDA_NVCC_BUILTINS_H
#define RC_CUDA_NVCC_BUILTINS_H
#pragma clang system_header

#if defined(__CUDA__) && defined(__clang__)

#define RC_BUILTIN extern "C" __device__ inline

// Address-space tests (sm_20_intrinsics.hpp; clang renames CUDA's __isGlobal
// and the like and defines its own, which these share).
RC_BUILTIN unsigned __nv_isGlobal_impl(const void *__ptr) {
  return __nvvm_isspacep_global(__ptr);
}
RC_BUILTIN unsigned __nv_isShared_impl(const void *__ptr) {
  return __nvvm_isspacep_shared(__ptr);
}
RC_BUILTIN unsigned __nv_isConstant_impl(const void *__ptr) {
  return __nvvm_isspacep_const(__ptr);
}
RC_BUILTIN unsigned __nv_isLocal_impl(const void *__ptr) {
  return __nvvm_isspacep_local(__ptr);
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
// Whether a generic address points into a kernel's parameters (a
// __grid_constant__ parameter's address does).
RC_BUILTIN unsigned __nv_isGridConstant_impl(const void *__ptr) {
  unsigned __result;
  asm("{\n\t.reg .pred rc_p;\n\t"
      "isspacep.param rc_p, %1;\n\t"
      "selp.u32 %0, 1, 0, rc_p;\n\t}"
      : "=r"(__result)
      : "l"(__ptr));
  return __result;
}

// atomicCAS on unsigned short (crt/sm_70_rt.hpp).
RC_BUILTIN unsigned short __usAtomicCAS(unsigned short *__address,
                                        unsigned short __compare,
                                        unsigned short __val) {
  unsigned short __old;
  asm volatile("atom.cas.b16 %0, [%1], %2, %3;"
               : "=h"(__old)
               : "l"(__address), "h"(__compare), "h"(__val)
               : "memory");
  return __old;
}
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
// Warp reductions (crt/sm_80_rt.hpp): (mask, value), as __reduce_*_sync.
#define RC_REDUCE_BUILTIN(OP, KIND, T)                                         \
  RC_BUILTIN T __reduce_##OP##_sync_##KIND##_impl(unsigned __mask,             \
                                                  T __value) {                 \
    return __reduce_##OP##_sync(__mask, __value);                              \
  }
RC_REDUCE_BUILTIN(add, unsigned, unsigned)
RC_REDUCE_BUILTIN(min, unsigned, unsigned)
RC_REDUCE_BUILTIN(max, unsigned, unsigned)
RC_REDUCE_BUILTIN(add, signed, int)
RC_REDUCE_BUILTIN(min, signed, int)
RC_REDUCE_BUILTIN(max, signed, int)
RC_REDUCE_BUILTIN(or, unsigned, unsigned)
RC_REDUCE_BUILTIN(and, unsigned, unsigned)
RC_REDUCE_BUILTIN(xor, unsigned, unsigned)
#undef RC_REDUCE_BUILTIN
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// Thread block clusters (crt/sm_90_rt.hpp).
RC_BUILTIN unsigned __nv_isClusterShared_impl(const void *__ptr) {
  return __isClusterShared(__ptr);
}
RC_BUILTIN void *__nv_cluster_map_shared_rank_impl(const void *__ptr,
                                                   unsigned __rank) {
  return __cluster_map_shared_rank(__ptr, __rank);
}
RC_BUILTIN unsigned __nv_cluster_query_shared_rank_impl(const void *__ptr) {
  return __cluster_query_shared_rank(__ptr);
}
RC_BUILTIN unsigned __nv_clusterDimIsSpecifed_impl() {
  return __clusterDimIsSpecified();
}
#define RC_CLUSTER_DIM3_BUILTIN(NAME)                                          \
  RC_BUILTIN void __nv_##NAME##_impl(unsigned *__x, unsigned *__y,             \
                                     unsigned *__z) {                          \
    dim3 __d = __##NAME();                                                     \
    *__x = __d.x;                                                              \
    *__y = __d.y;                                                              \
    *__z = __d.z;                                                              \
  }
RC_CLUSTER_DIM3_BUILTIN(clusterDim)
RC_CLUSTER_DIM3_BUILTIN(clusterRelativeBlockIdx)
RC_CLUSTER_DIM3_BUILTIN(clusterGridDimInClusters)
RC_CLUSTER_DIM3_BUILTIN(clusterIdx)
#undef RC_CLUSTER_DIM3_BUILTIN
RC_BUILTIN unsigned __nv_clusterRelativeBlockRank_impl() {
  return __clusterRelativeBlockRank();
}
RC_BUILTIN unsigned __nv_clusterSizeInBlocks_impl() {
  return __clusterSizeInBlocks();
}
RC_BUILTIN void __nv_cluster_barrier_arrive_impl() {
  __cluster_barrier_arrive();
}
RC_BUILTIN void __nv_cluster_barrier_arrive_relaxed_impl() {
  __cluster_barrier_arrive_relaxed();
}
RC_BUILTIN void __nv_cluster_barrier_wait_impl() { __cluster_barrier_wait(); }
RC_BUILTIN void __nv_threadfence_cluster_impl() { __threadfence_cluster(); }

// Vector atomicAdd (crt/sm_90_rt.hpp): rc-cuda-device-functions.h's.
#define RC_VECTOR_ADD_BUILTIN(SUFFIX)                                          \
  RC_BUILTIN float2 __f2AtomicAdd##SUFFIX(float2 *__address, float2 __val) {   \
    return atomicAdd##SUFFIX(__address, __val);                                \
  }                                                                            \
  RC_BUILTIN float4 __f4AtomicAdd##SUFFIX(float4 *__address, float4 __val) {   \
    return atomicAdd##SUFFIX(__address, __val);                                \
  }
RC_VECTOR_ADD_BUILTIN()
RC_VECTOR_ADD_BUILTIN(_block)
RC_VECTOR_ADD_BUILTIN(_system)
#undef RC_VECTOR_ADD_BUILTIN

// 128-bit atomics (crt/sm_90_rt.h): operands and result by address.
struct alignas(16) __rc_u128 {
  unsigned long long __words[2];
};
#define RC_U128_BUILTIN(SUFFIX)                                                \
  RC_BUILTIN void __u128AtomicCAS##SUFFIX(void *__address, void *__compare,    \
                                          void *__val, void *__result) {       \
    __rc_u128 __c, __v;                                                        \
    __builtin_memcpy(&__c, __compare, 16);                                     \
    __builtin_memcpy(&__v, __val, 16);                                         \
    __rc_u128 __old = atomicCAS##SUFFIX((__rc_u128 *)__address, __c, __v);     \
    __builtin_memcpy(__result, &__old, 16);                                    \
  }                                                                            \
  RC_BUILTIN void __u128AtomicExch##SUFFIX(void *__address, void *__val,       \
                                           void *__result) {                   \
    __rc_u128 __v;                                                             \
    __builtin_memcpy(&__v, __val, 16);                                         \
    __rc_u128 __old = atomicExch##SUFFIX((__rc_u128 *)__address, __v);         \
    __builtin_memcpy(__result, &__old, 16);                                    \
  }
RC_U128_BUILTIN()
RC_U128_BUILTIN(_block)
RC_U128_BUILTIN(_system)
#undef RC_U128_BUILTIN
#endif

#undef RC_BUILTIN

#endif // __CUDA__ && __clang__
#endif // RC_CUDA_NVCC_BUILTINS_H
