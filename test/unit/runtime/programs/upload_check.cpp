// Uploads MIB MiB of bytes made from SEED from pageable memory (in PARTS
// cudaMemcpy calls, 1 by default), reads them back and checks every byte;
// the integration test runs it against a server with a content cache and
// reads the client's RC_STATS for what the cache held.
//   upload_check MIB SEED [PARTS]
// Prints "PASS" and exits 0, or names each failed step and exits 1.
#include "checks.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const size_t n = std::strtoul(argv[1], nullptr, 10) << 20;
  const unsigned seed = unsigned(std::strtoul(argv[2], nullptr, 10));
  const size_t parts = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1;
  if (parts == 0 || n % parts)
    return 2;
  std::vector<unsigned char> in(n), out(n);
  // A xorshift stream: no two chunks of an upload alike.
  unsigned long long x = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    in[i] = (unsigned char)x;
  }
  void *d = nullptr;
  CUDA_OK(cudaMalloc(&d, n));
  const size_t part = n / parts;
  for (size_t off = 0; off < n; off += part)
    CUDA_OK(cudaMemcpy(static_cast<unsigned char *>(d) + off, in.data() + off,
                       part, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(out.data(), d, n, cudaMemcpyDeviceToHost));
  CHECK(in == out);
  CUDA_OK(cudaFree(d));
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
