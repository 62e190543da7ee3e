// cuRAND's host API (curandCreateGenerator, curandGenerate*) run by
// rc-server's libcurand on the GPU (docs/libraries.md): the numbers land in
// this program's device memory, where its own kernel reads them, and a
// generator made by curandCreateGeneratorHost writes host memory.
#include "check.h"

#include <curand.h>

#include <cmath>
#include <vector>

#define CHECK_RAND(call) CHECK_LIB(call, CURAND_STATUS_SUCCESS)

__global__ void countBelowHalf(const float *v, int n, unsigned *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && v[i] < 0.5f)
    atomicAdd(count, 1u);
}

static double mean(const std::vector<float> &v) {
  double s = 0;
  for (float x : v)
    s += x;
  return s / double(v.size());
}

int main() {
  const int n = 1 << 20;
  long mismatches = 0;
  float *dev = nullptr;
  unsigned *count = nullptr;
  CHECK(cudaMalloc(&dev, n * sizeof(float)));
  CHECK(cudaMalloc(&count, sizeof(unsigned)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  curandGenerator_t gen;
  CHECK_RAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CHECK_RAND(curandSetStream(gen, stream));
  CHECK_RAND(curandSetPseudoRandomGeneratorSeed(gen, 2026));
  CHECK_RAND(curandGenerateUniform(gen, dev, n));
  std::vector<float> first(n), again(n);
  CHECK(cudaMemcpyAsync(first.data(), dev, n * sizeof(float),
                        cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  unsigned below = 0;
  for (float x : first) {
    mismatches += !(x > 0.0f && x <= 1.0f);
    below += x < 0.5f;
  }
  if (std::fabs(mean(first) - 0.5) > 0.01)
    ++mismatches, std::fprintf(stderr, "uniform mean %f\n", mean(first));

  // This program's kernel reads what the library wrote.
  CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned), stream));
  countBelowHalf<<<(n + 255) / 256, 256, 0, stream>>>(dev, n, count);
  unsigned onGpu = 0;
  CHECK(cudaMemcpyAsync(&onGpu, count, sizeof onGpu, cudaMemcpyDeviceToHost,
                        stream));
  CHECK(cudaStreamSynchronize(stream));
  mismatches += onGpu != below;

  // The same seed gives the same sequence again.
  CHECK_RAND(curandSetPseudoRandomGeneratorSeed(gen, 2026));
  CHECK_RAND(curandSetGeneratorOffset(gen, 0));
  CHECK_RAND(curandGenerateUniform(gen, dev, n));
  CHECK(
      cudaMemcpy(again.data(), dev, n * sizeof(float), cudaMemcpyDeviceToHost));
  mismatches += first != again;

  // Normal numbers: mean 0, deviation 1.
  CHECK_RAND(curandGenerateNormal(gen, dev, n, 0.0f, 1.0f));
  CHECK(
      cudaMemcpy(again.data(), dev, n * sizeof(float), cudaMemcpyDeviceToHost));
  double m = mean(again), var = 0;
  for (float x : again)
    var += (x - m) * (x - m);
  var /= n;
  if (std::fabs(m) > 0.01 || std::fabs(var - 1.0) > 0.01)
    ++mismatches, std::fprintf(stderr, "normal mean %f var %f\n", m, var);
  CHECK_RAND(curandDestroyGenerator(gen));

  // A host generator writes host memory (here, through the server).
  curandGenerator_t host;
  CHECK_RAND(curandCreateGeneratorHost(&host, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CHECK_RAND(curandSetPseudoRandomGeneratorSeed(host, 2026));
  std::vector<float> onHost(4096);
  CHECK_RAND(curandGenerateUniform(host, onHost.data(), onHost.size()));
  if (std::fabs(mean(onHost) - 0.5) > 0.03)
    ++mismatches, std::fprintf(stderr, "host mean %f\n", mean(onHost));
  CHECK_RAND(curandDestroyGenerator(host));

  // The Sobol direction numbers of dimension 1 are the van der Corput
  // sequence's: 2^31, 2^30, ...
  curandDirectionVectors32_t *vectors = nullptr;
  CHECK_RAND(curandGetDirectionVectors32(&vectors,
                                         CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  for (int k = 0; k < 32; ++k)
    mismatches += vectors[0][k] != (1u << (31 - k));

  CHECK(cudaFree(dev));
  CHECK(cudaFree(count));
  return finish("curand_host", mismatches);
}
