// A stand-in for libcurand.so.10 on the host test device (CI has no GPU
// and no cuRAND): just enough of curand.h, on host memory, to drive
// rc-server's library calls end to end. Its numbers are not cuRAND's; the
// GPU tests run the real library. Each generator's end is logged to stderr
// (rc-server's log), so tests see the server destroy what a session left.
#include <curand.h>

#include <cstdint>
#include <cstdio>
#include <new>

struct curandGenerator_st {
  bool host;
  uint64_t state;
};

namespace {

int gLive = 0;
unsigned gTable[20000][32];
bool gTableFilled = false;

uint64_t next(curandGenerator_st *g) { // splitmix64
  uint64_t z = (g->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

curandStatus_t create(curandGenerator_t *g, curandRngType_t type, bool host) {
  if (type != CURAND_RNG_PSEUDO_DEFAULT && type != CURAND_RNG_PSEUDO_MTGP32)
    return CURAND_STATUS_TYPE_ERROR;
  *g = new (std::nothrow) curandGenerator_st{host, 0};
  ++gLive;
  return CURAND_STATUS_SUCCESS;
}

} // namespace

extern "C" {

curandStatus_t curandCreateGenerator(curandGenerator_t *g,
                                     curandRngType_t type) {
  return create(g, type, false);
}

curandStatus_t curandCreateGeneratorHost(curandGenerator_t *g,
                                         curandRngType_t type) {
  return create(g, type, true);
}

curandStatus_t curandDestroyGenerator(curandGenerator_t g) {
  delete g;
  std::fprintf(stderr, "fake curand: generator destroyed, %d left\n", --gLive);
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetVersion(int *version) {
  *version = 424242;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetStream(curandGenerator_t, cudaStream_t) {
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g,
                                                  unsigned long long seed) {
  g->state = seed;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out,
                                     size_t n) {
  for (size_t i = 0; i < n; ++i)
    out[i] = float((next(g) >> 40) + 1) / float(1 << 24); // (0, 1]
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t
curandGetDirectionVectors32(curandDirectionVectors32_t *vectors[],
                            curandDirectionVectorSet_t set) {
  if (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  for (unsigned d = 0; !gTableFilled && d < 20000; ++d)
    for (unsigned k = 0; k < 32; ++k)
      gTable[d][k] = d * 32 + k;
  gTableFilled = true;
  *vectors = gTable;
  return CURAND_STATUS_SUCCESS;
}

} // extern "C"
