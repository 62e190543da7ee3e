// __constant__ coefficients set with cudaMemcpyToSymbol (also at an offset),
// read back with cudaMemcpyFromSymbol; a __device__ counter likewise.
#include "check.h"
#include <vector>

constexpr int kCoeffs = 8;
__constant__ float coeffs[kCoeffs];
__device__ unsigned int evaluated;

__global__ void polynomial(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int k = kCoeffs - 1; k >= 0; --k)
    acc = acc * x[i] + coeffs[k];
  y[i] = acc;
  atomicAdd(&evaluated, 1u);
}

int main() {
  const int n = 5000;
  float host_coeffs[kCoeffs] = {1, -2, 0.5f, 0, 0, 0, 0, 0};
  CHECK(cudaMemcpyToSymbol(coeffs, host_coeffs, sizeof host_coeffs));
  // Overwrite the last two coefficients through an offset.
  float tail[2] = {0.25f, -0.125f};
  host_coeffs[6] = tail[0];
  host_coeffs[7] = tail[1];
  CHECK(cudaMemcpyToSymbol(coeffs, tail, sizeof tail, 6 * sizeof(float)));
  unsigned int zero = 0;
  CHECK(cudaMemcpyToSymbol(evaluated, &zero, sizeof zero));

  float readback[kCoeffs];
  CHECK(cudaMemcpyFromSymbol(readback, coeffs, sizeof readback));
  long bad = 0;
  for (int k = 0; k < kCoeffs; ++k)
    bad += readback[k] != host_coeffs[k];

  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 5) * 0.5f - 1.0f; // exact in binary: exact results
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  polynomial<<<(n + 127) / 128, 128>>>(dx, dy, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  unsigned int count = 0;
  CHECK(cudaMemcpyFromSymbol(&count, evaluated, sizeof count));
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int k = kCoeffs - 1; k >= 0; --k)
      acc = acc * x[i] + host_coeffs[k];
    bad += y[i] != acc;
  }
  bad += count != unsigned(n);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return finish("constant_memory", bad);
}
