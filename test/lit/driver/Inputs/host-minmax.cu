// Host code calling min/max as nvcc's headers allow (cuda-samples'
// simpleStreams: `max(32.0f / cores, 1.0f)`), a kernel using clang's device
// overloads, and a __host__ __device__ function whose device pass must keep
// a device overload for min(long, long).
#include <cstdio>

__host__ __device__ long pick(long a, long b) { return min(a, b); }

__global__ void clamp(int *p, float *f) {
  p[0] = max(p[1], p[2]);
  f[0] = min(f[1], f[2]);
  p[3] = int(pick(p[4], p[5]));
}

int main() {
  unsigned u = 3;
  int i = -1;
  long long ll = -8;
  unsigned long long ull = 7;
  std::printf("%d %u %u %ld %llu %lld %g %g %g %ld\n", max(2, 3), min(u, 9u),
              max(i, u), max(5L, 2L), max(ull, ll), min(ll, ll),
              max(32.0f / 64, 1.0f), min(1.5, 2.5), max(1.0f, 2.5),
              pick(4, 9));
}
