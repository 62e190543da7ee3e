// Device functions nvcc declares that clang 19's headers lack or define
// differently (driver/include/rc-cuda-*.h); device-functions.test checks
// the instruction each becomes.
struct alignas(16) Pair {
  long long first, second;
};

// A code base that streams through int4 and float4 with __ldcs/__stcs.
__global__ void streaming(int4 *dst, const int4 *src, float4 *f) {
  __stcs(dst + threadIdx.x, __ldcs(src + threadIdx.x));
  __stwt(f + 1, __ldlu(f));
}
// Every hint, on scalars of each width and the other vector shapes.
__global__ void hints(char *c, unsigned short *s, unsigned *u, long *l,
                      double *d, uchar4 *c4, short2 *s2, double2 *d2,
                      ulonglong2 *q) {
  c[1] = __ldcg(c);
  s[1] = __ldca(s);
  u[1] = __ldcv(u);
  __stwb(l + 1, __ldcs(l));
  __stcg(d + 1, __ldlu(d));
  __stcs(c4 + 1, __ldca(c4));
  __stwt(s2 + 1, __ldcg(s2));
  __stwb(d2 + 1, __ldcv(d2));
  __stcg(q + 1, __ldcs(q));
}
// clock() is the 64-bit cycle counter, as nvcc's; clock64() too.
__global__ void clocks(long long *t) {
  clock_t start = clock();
  t[0] = clock() - start;
  t[1] = clock64();
}
// Vector atomics whose result is unused still happen.
__global__ void vectorAtomics(float2 *f2, float4 *f4) {
  atomicAdd(f2, make_float2(1.0f, 2.0f));
  atomicAdd_block(f4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
  atomicAdd_system(f2 + 1, make_float2(3.0f, 4.0f));
}
// 16-byte atomics and atomicCAS on unsigned short.
__global__ void wideAtomics(Pair *p, Pair compare, Pair value,
                            unsigned short *u) {
  p[1] = atomicCAS(p, compare, value);
  p[2] = atomicExch_block(p + 3, value);
  u[1] = atomicCAS(u, u[2], u[3]);
}
// Aligned allocation and a profiler counter chosen at run time.
__global__ void allocations(void **out, size_t n, int counter) {
  out[0] = __nv_aligned_device_malloc(n, 64);
  out[1] = ::operator new(n, std::align_val_t(128));
  __prof_trigger(counter);
  __prof_trigger(3);
}
// cp.async with a run-time source size (zero fill), 32-bit shared pointers.
__global__ void asyncCopy(const int4 *src, unsigned bytes, int4 *out) {
  __shared__ int4 tile[32];
  __nv_memcpy_async_shared_global_16(tile + threadIdx.x, src + threadIdx.x,
                                     bytes);
  out[threadIdx.x] = tile[threadIdx.x ^ 1];
}
// A __grid_constant__ parameter's address, and __isGridConstant of it.
__global__ void gridConstant(const __grid_constant__ Pair p, unsigned *out) {
  *out = __isGridConstant(&p);
}
