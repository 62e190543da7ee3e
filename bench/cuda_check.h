// CHECK(call): the bench programs' error handling. A CUDA call that fails
// ends the program with its text and CUDA's words for the error, so a
// broken configuration never reports a number.
#ifndef RC_BENCH_CUDA_CHECK_H
#define RC_BENCH_CUDA_CHECK_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));       \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#endif
