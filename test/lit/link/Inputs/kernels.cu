// Kernels whose layouts the fragments in this directory describe by hand
// (so rc-link / rc-manifest tests do not depend on the plugin).
struct alignas(16) S {
  float *p;
  int n;
  double d;
  int *q;
};
__global__ void kadd(float *a, const float *b, int n, S s, char c) {
  int i = threadIdx.x;
  if (i < n)
    a[i] += b[i] + s.n + c;
}
template <typename T> __global__ void ktmpl(T *x, T v) { x[threadIdx.x] = v; }
template __global__ void ktmpl<int>(int *, int);
