// Shared by the samples: abort with the failing call and its error string.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                   cudaGetErrorString(err_));                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// A library call (cuRAND, cuBLAS, cuSPARSE, cuSOLVER...) that must return
// its library's success status `ok`.
#define CHECK_LIB(call, ok)                                                    \
  do {                                                                         \
    int s_ = int(call);                                                        \
    if (s_ != int(ok)) {                                                       \
      std::fprintf(stderr, "FAIL %s:%d: %s: status %d\n", __FILE__, __LINE__,  \
                   #call, s_);                                                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Launch errors surface through cudaGetLastError, then the sync.
#define CHECK_LAUNCH()                                                         \
  do {                                                                         \
    CHECK(cudaGetLastError());                                                 \
    CHECK(cudaDeviceSynchronize());                                            \
  } while (0)

inline int finish(const char *name, long mismatches) {
  if (mismatches) {
    std::fprintf(stderr, "FAIL %s: %ld mismatches\n", name, mismatches);
    return 1;
  }
  std::printf("PASS %s\n", name);
  return 0;
}
