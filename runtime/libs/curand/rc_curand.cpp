// librc_curand: cuRAND's host API served by rc-server's libcurand
// (docs/libraries.md). Most entry points are generated from the rows of
// abi/include/rc/libcalls/curand.def; these are the ones that need more:
// generators made by curandCreateGeneratorHost write host memory, so
// their generate calls travel as the *_host rows, whose output comes back
// in the reply.
#include "lib_forward.h"

#include <curand.h>

#include <cstdint>
#include <mutex>
#include <set>

namespace {

// cuRAND has no "not supported" status: what a call that could not be
// sent returns.
constexpr curandStatus_t kFailed = CURAND_STATUS_INTERNAL_ERROR;

std::mutex gMu;
std::set<curandGenerator_t> gHostGenerators;

bool isHost(curandGenerator_t g) {
  std::lock_guard<std::mutex> lock(gMu);
  return gHostGenerators.count(g) != 0;
}

template <class... A>
curandStatus_t generate(curandGenerator_t g, rc::lib::Row device,
                        rc::lib::Row host, const A &...a) {
  return rc::lib::forward(isHost(g) ? host : device, kFailed, g, a...);
}

} // namespace

#define RC_API extern "C" __attribute__((visibility("default")))

RC_API curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator,
                                                curandRngType_t rng_type) {
  curandStatus_t st = rc::lib::forward(rc::lib::rows::curandCreateGeneratorHost,
                                       kFailed, generator, rng_type);
  if (st == CURAND_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> lock(gMu);
    gHostGenerators.insert(*generator);
  }
  return st;
}

RC_API curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  {
    std::lock_guard<std::mutex> lock(gMu);
    gHostGenerators.erase(generator);
  }
  return rc::lib::forward(rc::lib::rows::curandDestroyGenerator, kFailed,
                          generator);
}

RC_API curandStatus_t curandGenerate(curandGenerator_t generator,
                                     unsigned int *outputPtr, size_t num) {
  return generate(generator, rc::lib::rows::curandGenerate,
                  rc::lib::rows::curandGenerate_host, outputPtr, num);
}

RC_API curandStatus_t curandGenerateLongLong(curandGenerator_t generator,
                                             unsigned long long *outputPtr,
                                             size_t num) {
  return generate(generator, rc::lib::rows::curandGenerateLongLong,
                  rc::lib::rows::curandGenerateLongLong_host, outputPtr, num);
}

RC_API curandStatus_t curandGenerateUniform(curandGenerator_t generator,
                                            float *outputPtr, size_t num) {
  return generate(generator, rc::lib::rows::curandGenerateUniform,
                  rc::lib::rows::curandGenerateUniform_host, outputPtr, num);
}

RC_API curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator,
                                                  double *outputPtr,
                                                  size_t num) {
  return generate(generator, rc::lib::rows::curandGenerateUniformDouble,
                  rc::lib::rows::curandGenerateUniformDouble_host, outputPtr,
                  num);
}

RC_API curandStatus_t curandGenerateNormal(curandGenerator_t generator,
                                           float *outputPtr, size_t n,
                                           float mean, float stddev) {
  return generate(generator, rc::lib::rows::curandGenerateNormal,
                  rc::lib::rows::curandGenerateNormal_host, outputPtr, n, mean,
                  stddev);
}

RC_API curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator,
                                                 double *outputPtr, size_t n,
                                                 double mean, double stddev) {
  return generate(generator, rc::lib::rows::curandGenerateNormalDouble,
                  rc::lib::rows::curandGenerateNormalDouble_host, outputPtr, n,
                  mean, stddev);
}

RC_API curandStatus_t curandGenerateLogNormal(curandGenerator_t generator,
                                              float *outputPtr, size_t n,
                                              float mean, float stddev) {
  return generate(generator, rc::lib::rows::curandGenerateLogNormal,
                  rc::lib::rows::curandGenerateLogNormal_host, outputPtr, n,
                  mean, stddev);
}

RC_API curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator,
                                                    double *outputPtr, size_t n,
                                                    double mean,
                                                    double stddev) {
  return generate(generator, rc::lib::rows::curandGenerateLogNormalDouble,
                  rc::lib::rows::curandGenerateLogNormalDouble_host, outputPtr,
                  n, mean, stddev);
}

RC_API curandStatus_t curandGeneratePoisson(curandGenerator_t generator,
                                            unsigned int *outputPtr, size_t n,
                                            double lambda) {
  return generate(generator, rc::lib::rows::curandGeneratePoisson,
                  rc::lib::rows::curandGeneratePoisson_host, outputPtr, n,
                  lambda);
}
