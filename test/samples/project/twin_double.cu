// twin_int's counterpart (see there): `twin` and `table` of other types and
// sizes, `fill` of the same signature with other code.
#include "check.h"
#include <cstring>
#include <vector>

constexpr int kTable = 40;
__constant__ double table[kTable];

extern "C" __global__ void twin(double *out, double scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = table[i % kTable] * scale;
}

__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 5 * i + 2;
}

int main(int argc, char **argv) {
  const bool testDevice = argc > 1 && !std::strcmp(argv[1], "--test-device");
  long bad = 0;
  double host[kTable], back[kTable];
  for (int i = 0; i < kTable; ++i)
    host[i] = 0.5 * i - 3.25;
  CHECK(cudaMemcpyToSymbol(table, host, sizeof host));
  CHECK(cudaMemcpyFromSymbol(back, table, sizeof back));
  bad += std::memcmp(host, back, sizeof host) != 0;
  size_t size = 0;
  CHECK(cudaGetSymbolSize(&size, table));
  bad += size != sizeof host;

  const int n = 1000;
  double *d;
  CHECK(cudaMalloc(&d, n * sizeof(double)));
  twin<<<(n + 127) / 128, 128>>>(d, 4.0, n);
  CHECK_LAUNCH();
  std::vector<double> out(n);
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
  if (!testDevice)
    for (int i = 0; i < n; ++i)
      bad += out[i] != host[i % kTable] * 4.0; // exact: a power of two
  int *di;
  CHECK(cudaMalloc(&di, n * sizeof(int)));
  fill<<<(n + 127) / 128, 128>>>(di, n);
  CHECK_LAUNCH();
  std::vector<int> outi(n);
  CHECK(cudaMemcpy(outi.data(), di, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (!testDevice)
    for (int i = 0; i < n; ++i)
      bad += outi[i] != 5 * i + 2;
  CHECK(cudaFree(d));
  CHECK(cudaFree(di));
  return finish("twin_double", bad);
}
