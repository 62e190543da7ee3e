// Kernels of every linkage kind; IDs must not depend on the build directory
// or on link order.
static __global__ void helper_static(int *p) { p[0] = 1; }
namespace {
__global__ void helper_anon(float *p, int n) { p[n] = 2; }
} // namespace
template <typename T> __global__ void fill(T *p, T v) { p[threadIdx.x] = v; }
__global__ void entry_a(double *d) { d[0] = 3; }
void launch_a(int *ip, float *fp, double *dp) {
  helper_static<<<1, 1>>>(ip);
  helper_anon<<<1, 1>>>(fp, 0);
  fill<<<1, 1>>>(ip, 4);
  entry_a<<<1, 1>>>(dp);
}
