// Host code with OpenMP beside a kernel: the reduction's result and the
// thread count come from libomp; the kernel is never launched (no server).
#include <cstdio>
#include <omp.h>

__global__ void fill(float *x) { x[threadIdx.x] = 1; }

int main() {
  int sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2)
  for (int i = 0; i < 100; ++i)
    sum += i;
  int team = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  std::printf("omp sum %d team %d\n", sum, team);
  return sum == 4950 ? 0 : 1;
}
