// Same static kernel name as stable_a.cu (distinct IDs: salted per TU) and
// the same template instantiation (one kernel after merge).
static __global__ void helper_static(int *p) { p[0] = 5; }
template <typename T> __global__ void fill(T *p, T v) { p[threadIdx.x] = v; }
__global__ void entry_b(float *f) { f[0] = 6; }
void launch_b(int *ip, float *fp) {
  helper_static<<<1, 1>>>(ip);
  fill<<<1, 1>>>(ip, 7);
  fill<<<1, 1>>>(fp, 8.0f);
  entry_b<<<1, 1>>>(fp);
}
