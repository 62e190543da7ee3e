// The CUDA guide's atomic functions on every type it lists, with the
// _block and _system scopes, and its other device runtime functions:
// __nanosleep, __trap, __brkpt, assert, printf, memory fences. Every
// result is unused: each atomic must stay all the same.
#include <cassert>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

struct alignas(16) Pair {
  long long first, second;
};

__global__ void atomics(int *i, unsigned *u, unsigned long long *ull,
                        long long *ll, float *f, double *d, __half *h,
                        __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2,
                        float2 *f2, float4 *f4, unsigned short *us, Pair *p) {
  atomicAdd(i, 1);
  atomicAdd(u, 1u);
  atomicAdd(ull, 1ull);
  atomicAdd(f, 1.0f);
  atomicAdd(d, 1.0);
  atomicAdd(h, __float2half(1.0f));
  atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f));
  atomicAdd(b, __float2bfloat16(1.0f));
  atomicAdd(b2, __floats2bfloat162_rn(1.0f, 2.0f));
  atomicAdd(f2, make_float2(1.0f, 2.0f));
  atomicAdd(f4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
  atomicAdd_block(i, 1);
  atomicAdd_system(f, 1.0f);
  atomicSub(i, 1);
  atomicSub(u, 1u);
  atomicExch(i, 1);
  atomicExch(u, 1u);
  atomicExch(ull, 1ull);
  atomicExch(f, 1.0f);
  atomicExch(p, Pair{1, 2});
  atomicMin(i, 1);
  atomicMin(u, 1u);
  atomicMin(ull, 1ull);
  atomicMin(ll, 1ll);
  atomicMax(i, 1);
  atomicMax(u, 1u);
  atomicMax(ull, 1ull);
  atomicMax(ll, 1ll);
  atomicInc(u, 10u);
  atomicDec(u, 10u);
  atomicCAS(i, 1, 2);
  atomicCAS(u, 1u, 2u);
  atomicCAS(ull, 1ull, 2ull);
  atomicCAS(us, (unsigned short)1, (unsigned short)2);
  atomicCAS(p, Pair{1, 2}, Pair{3, 4});
  atomicAnd(i, 1);
  atomicAnd(u, 1u);
  atomicAnd(ull, 1ull);
  atomicOr(i, 1);
  atomicOr(u, 1u);
  atomicOr(ull, 1ull);
  atomicXor(i, 1);
  atomicXor(u, 1u);
  atomicXor(ull, 1ull);
}

__global__ void runtime(int *i) {
  __nanosleep(100);
  assert(*i >= 0);
  printf("%d\n", *i);
  __threadfence();
  __threadfence_block();
  __threadfence_system();
  if (*i == 12345)
    __trap();
  if (*i == 54321)
    __brkpt();
}
