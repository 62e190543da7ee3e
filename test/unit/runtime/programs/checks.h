// CHECK / CUDA_OK for the plain test programs: each failed step is printed
// with its line and counted in `failures`; main() reports the count and
// exits non-zero (no GoogleTest in these processes: they link only the
// remote-clang runtime libraries, like an application).
#ifndef RC_TEST_PROGRAM_CHECKS_H
#define RC_TEST_PROGRAM_CHECKS_H

#include <cuda_runtime_api.h>

#include <cstdio>

inline int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #cond);             \
      ++failures;                                                              \
    }                                                                          \
  } while (0)
#define CUDA_OK(call)                                                          \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "FAIL line %d: %s -> %s\n", __LINE__, #call,        \
                   cudaGetErrorName(e_));                                      \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#endif
