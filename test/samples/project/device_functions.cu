// Device functions whose code remote-clang supplies or corrects where
// clang 19's CUDA headers lack them or differ from nvcc
// (driver/include/rc-cuda-*.h, the plugin's GridConstantPass), run on the
// GPU with results nvcc's would give: cache-hinted loads and stores,
// vector and 16-byte atomics whose results go unused, 16-bit atomicCAS,
// clock(), a __grid_constant__ parameter's address, aligned device
// allocation, and a cp.async whose source size is zero (zero fill).
#include "check.h"
#include <new>

constexpr int kThreads = 256;

struct alignas(16) Pair {
  long long count, sum;
};
struct Table {
  int values[32];
};

__global__ void hintedCopy(int4 *dst, const int4 *src, float2 *fdst,
                           const float2 *fsrc, double *ddst,
                           const double *dsrc) {
  int i = threadIdx.x;
  __stcs(dst + i, __ldcs(src + i));
  __stwt(fdst + i, __ldlu(fsrc + i));
  __stcg(ddst + i, __ldca(dsrc + i) + __ldcv(dsrc + i) - __ldcg(dsrc + i));
}

// Every result unused: each atomic must happen all the same.
__global__ void atomics(float2 *f2, float4 *f4, Pair *pair,
                        unsigned short *counter16) {
  atomicAdd(f2, make_float2(1.0f, 2.0f));
  atomicAdd_block(f4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
  Pair seen = *pair, want;
  do {
    want = Pair{seen.count + 1, seen.sum + threadIdx.x};
    Pair old = atomicCAS(pair, seen, want);
    if (old.count == seen.count && old.sum == seen.sum)
      break;
    seen = old;
  } while (true);
  unsigned short old16 = *counter16;
  unsigned short got16;
  while ((got16 = atomicCAS(counter16, old16, (unsigned short)(old16 + 1))) !=
         old16)
    old16 = got16;
}

__global__ void clocks(long long *out) {
  clock_t start = clock();
  __nanosleep(100000);
  out[0] = (long long)(clock() - start);
  out[1] = sizeof(clock_t);
}

__device__ __noinline__ int sumThrough(const Table *table) {
  int sum = 0;
  for (int i = 0; i < 32; ++i)
    sum += table->values[i];
  return sum;
}
__global__ void gridConstant(const __grid_constant__ Table table, int *out) {
  out[0] = __isGridConstant(&table);
  out[1] = sumThrough(&table);
}

__global__ void allocate(unsigned long long *misaligned) {
  void *a = __nv_aligned_device_malloc(100, 256);
  void *b = ::operator new(48, std::align_val_t(128));
  *misaligned = (unsigned long long)a % 256 + (unsigned long long)b % 128 +
                (a == nullptr) + (b == nullptr);
  free(a);
  ::operator delete(b, std::align_val_t(128));
}

__global__ void zeroFill(int4 *out, const int4 *in) {
  __shared__ int4 tile[kThreads];
  tile[threadIdx.x] = make_int4(7, 7, 7, 7);
  __syncthreads();
  __nv_memcpy_async_shared_global_16(tile + threadIdx.x, in + threadIdx.x,
                                     threadIdx.x % 2 ? 0 : 16);
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}

template <class T> T *deviceCopy(const T *host, int n) {
  T *device;
  CHECK(cudaMalloc(&device, n * sizeof(T)));
  CHECK(cudaMemcpy(device, host, n * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}
template <class T> void hostCopy(T *host, const T *device, int n) {
  CHECK(cudaMemcpy(host, device, n * sizeof(T), cudaMemcpyDeviceToHost));
}

long checkHinted() {
  int4 src[kThreads], dst[kThreads];
  float2 fsrc[kThreads], fdst[kThreads];
  double dsrc[kThreads], ddst[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    src[i] = make_int4(i, -i, 3 * i, 7);
    fsrc[i] = make_float2(i * 0.5f, -1.0f * i);
    dsrc[i] = i * 0.25;
  }
  int4 *d_src = deviceCopy(src, kThreads), *d_dst = deviceCopy(src, kThreads);
  float2 *f_src = deviceCopy(fsrc, kThreads),
         *f_dst = deviceCopy(fsrc, kThreads);
  double *dd_src = deviceCopy(dsrc, kThreads),
         *dd_dst = deviceCopy(dsrc, kThreads);
  CHECK(cudaMemset(d_dst, 0, sizeof dst));
  CHECK(cudaMemset(f_dst, 0, sizeof fdst));
  CHECK(cudaMemset(dd_dst, 0, sizeof ddst));
  hintedCopy<<<1, kThreads>>>(d_dst, d_src, f_dst, f_src, dd_dst, dd_src);
  CHECK_LAUNCH();
  hostCopy(dst, d_dst, kThreads);
  hostCopy(fdst, f_dst, kThreads);
  hostCopy(ddst, dd_dst, kThreads);
  long bad = 0;
  for (int i = 0; i < kThreads; ++i) {
    bad += dst[i].x != src[i].x || dst[i].y != src[i].y ||
           dst[i].z != src[i].z || dst[i].w != src[i].w;
    bad += fdst[i].x != fsrc[i].x || fdst[i].y != fsrc[i].y;
    bad += ddst[i] != dsrc[i];
  }
  return bad;
}

long checkAtomics() {
  float2 f2 = {0, 0};
  float4 f4 = {0, 0, 0, 0};
  Pair pair = {0, 0};
  unsigned short counter16 = 0;
  float2 *d_f2 = deviceCopy(&f2, 1);
  float4 *d_f4 = deviceCopy(&f4, 1);
  Pair *d_pair = deviceCopy(&pair, 1);
  unsigned short *d_counter16 = deviceCopy(&counter16, 1);
  const int blocks = 4;
  atomics<<<blocks, kThreads>>>(d_f2, d_f4, d_pair, d_counter16);
  CHECK_LAUNCH();
  hostCopy(&f2, d_f2, 1);
  hostCopy(&f4, d_f4, 1);
  hostCopy(&pair, d_pair, 1);
  hostCopy(&counter16, d_counter16, 1);
  const int n = blocks * kThreads;
  long bad = 0;
  bad += f2.x != n || f2.y != 2.0f * n;
  bad += f4.x != n || f4.y != 2.0f * n || f4.z != 3.0f * n || f4.w != 4.0f * n;
  bad +=
      pair.count != n || pair.sum != blocks * (kThreads * (kThreads - 1) / 2);
  bad += counter16 != n;
  if (bad)
    std::fprintf(stderr,
                 "atomics: f2 (%g, %g) f4 (%g, %g, %g, %g) pair (%lld, %lld) "
                 "counter16 %u, %d threads\n",
                 f2.x, f2.y, f4.x, f4.y, f4.z, f4.w, pair.count, pair.sum,
                 counter16, n);
  return bad;
}

long checkClock() {
  long long out[2] = {0, 0}, *d_out = deviceCopy(out, 2);
  clocks<<<1, 1>>>(d_out);
  CHECK_LAUNCH();
  hostCopy(out, d_out, 2);
  // 100 us of sleep are far more than 1000 cycles at any GPU clock.
  long bad = out[0] < 1000 || out[1] != 8;
  if (bad)
    std::fprintf(stderr, "clock: %lld cycles, sizeof(clock_t) %lld\n", out[0],
                 out[1]);
  return bad;
}

long checkGridConstant() {
  Table table;
  int expect = 0;
  for (int i = 0; i < 32; ++i)
    expect += table.values[i] = i * i - 5;
  int out[2] = {0, 0}, *d_out = deviceCopy(out, 2);
  gridConstant<<<1, 1>>>(table, d_out);
  CHECK_LAUNCH();
  hostCopy(out, d_out, 2);
  long bad = out[0] != 1 || out[1] != expect;
  if (bad)
    std::fprintf(stderr, "grid constant: __isGridConstant %d, sum %d of %d\n",
                 out[0], out[1], expect);
  return bad;
}

long checkAllocation() {
  unsigned long long misaligned = 1, *d_misaligned = deviceCopy(&misaligned, 1);
  allocate<<<1, 1>>>(d_misaligned);
  CHECK_LAUNCH();
  hostCopy(&misaligned, d_misaligned, 1);
  return misaligned != 0;
}

long checkZeroFill() {
  int4 in[kThreads], out[kThreads];
  for (int i = 0; i < kThreads; ++i)
    in[i] = make_int4(i + 1, i + 2, i + 3, i + 4);
  int4 *d_in = deviceCopy(in, kThreads), *d_out = deviceCopy(in, kThreads);
  zeroFill<<<1, kThreads>>>(d_out, d_in);
  CHECK_LAUNCH();
  hostCopy(out, d_out, kThreads);
  long bad = 0;
  for (int i = 0; i < kThreads; ++i) {
    int4 want = i % 2 ? make_int4(0, 0, 0, 0) : in[i];
    bad += out[i].x != want.x || out[i].y != want.y || out[i].z != want.z ||
           out[i].w != want.w;
  }
  return bad;
}

int main() {
  long bad = checkHinted() + checkAtomics() + checkClock() +
             checkGridConstant() + checkAllocation() + checkZeroFill();
  return finish("device_functions", bad);
}
