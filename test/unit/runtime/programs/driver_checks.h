// CU_OK for the plain test programs that call the driver API (checks.h's
// CUDA_OK for CUresult), and the test module's `scale` kernel registered
// as a chevron launch would register it: its host stub is scaleStub.
#ifndef RC_TEST_PROGRAM_DRIVER_CHECKS_H
#define RC_TEST_PROGRAM_DRIVER_CHECKS_H

#include "checks.h"
#include "test_module.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>

extern "C" {
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int,
                            uint3 *, uint3 *, dim3 *, dim3 *, int *);
}

#define CU_OK(call)                                                            \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = nullptr;                                                \
      cuGetErrorName(r_, &s_);                                                 \
      std::fprintf(stderr, "FAIL line %d: %s -> %d %s\n", __LINE__, #call,     \
                   int(r_), s_ ? s_ : "?");                                    \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

inline void scaleStub() {}

// Registers the test module's fatbin and `scale` at start-up, once.
struct ScaleRegistration {
  ScaleRegistration() {
    static struct {
      int magic, version;
      const void *data;
      void *unused;
    } wrapper = {int(0x466243B1), 1, rc::test::kTestFatbin, nullptr};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, reinterpret_cast<const char *>(&scaleStub),
                           nullptr, rc::test::kTestKernelName, -1, nullptr,
                           nullptr, nullptr, nullptr, nullptr);
  }
};
inline ScaleRegistration scaleRegistration;

#endif
