// A kernel taking a struct by value that holds device pointers: the
// manifest marks the pointer fields inside the aggregate.
#include "check.h"
#include <vector>

struct Views {
  const float *x;
  const float *y;
  int n;
  float alpha;
  float *out;
  double *sum_of_out; // one double, accumulated with atomics
};

__global__ void axpy_views(Views v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.n) {
    float r = v.alpha * v.x[i] + v.y[i];
    v.out[i] = r;
    atomicAdd(v.sum_of_out, double(r));
  }
}

int main() {
  const int n = 4096;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 10);
    y[i] = float(i % 3) - 1.0f;
  }
  Views v{};
  float *dx, *dy, *dout;
  double *dsum;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMalloc(&dsum, sizeof(double)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dsum, 0, sizeof(double)));
  v = Views{dx, dy, n, 3.0f, dout, dsum};
  axpy_views<<<(n + 255) / 256, 256>>>(v);
  CHECK_LAUNCH();
  double sum = 0;
  CHECK(
      cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&sum, dsum, sizeof(double), cudaMemcpyDeviceToHost));
  long bad = 0;
  double ref_sum = 0;
  for (int i = 0; i < n; ++i) {
    float r = 3.0f * x[i] + y[i];
    bad += out[i] != r;
    ref_sum += r;
  }
  bad += sum != ref_sum; // small integers: exact in double in any order
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dsum));
  return finish("struct_of_pointers", bad);
}
