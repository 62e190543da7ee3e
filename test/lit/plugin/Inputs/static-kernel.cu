// Included by the static/extern two-TU tests: one name, two translation units.
static __global__ void helper(int *p) {}
namespace {
__global__ void anon(float f) {}
__device__ int anon_counter;
} // namespace
__global__ void shared_extern(int *p) {}
static __device__ int static_var;

void launch_all(int *p) {
  helper<<<1, 1>>>(p);
  anon<<<1, 1>>>(1.0f);
  shared_extern<<<1, 1>>>(p);
  anon_counter = static_var;
}
