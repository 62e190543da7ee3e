// One of two programs (twin_int, twin_double) that define a kernel and a
// __constant__ of the same names with other types and sizes, and a kernel
// of the same signature with other code: one rc-server serves both, each
// with its own definitions (docs/manifest-format.md, "Kernel IDs").
// `--test-device`: the host test device runs no kernels, so only the
// symbol copies and the accepted launches are checked.
#include "check.h"
#include <cstring>
#include <vector>

constexpr int kTable = 16;
__constant__ int table[kTable];

extern "C" __global__ void twin(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = table[i % kTable] * 2 + i;
}

__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 3 * i + 1;
}

int main(int argc, char **argv) {
  const bool testDevice = argc > 1 && !std::strcmp(argv[1], "--test-device");
  long bad = 0;
  int host[kTable], back[kTable];
  for (int i = 0; i < kTable; ++i)
    host[i] = i * i - 7;
  CHECK(cudaMemcpyToSymbol(table, host, sizeof host));
  CHECK(cudaMemcpyFromSymbol(back, table, sizeof back));
  bad += std::memcmp(host, back, sizeof host) != 0;
  size_t size = 0;
  CHECK(cudaGetSymbolSize(&size, table));
  bad += size != sizeof host;

  const int n = 1000;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  twin<<<(n + 127) / 128, 128>>>(d, n);
  CHECK_LAUNCH();
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (!testDevice)
    for (int i = 0; i < n; ++i)
      bad += out[i] != host[i % kTable] * 2 + i;
  fill<<<(n + 127) / 128, 128>>>(d, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (!testDevice)
    for (int i = 0; i < n; ++i)
      bad += out[i] != 3 * i + 1;
  CHECK(cudaFree(d));
  return finish("twin_int", bad);
}
