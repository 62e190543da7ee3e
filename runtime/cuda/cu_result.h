// The driver-API result of a runtime call: cudaError_t and CUresult share
// their numbers for every code both have (checked against driver_types.h /
// cuda.h; see docs/server.md), except the runtime-only ones mapped here.
#ifndef RC_RUNTIME_CUDA_CU_RESULT_H
#define RC_RUNTIME_CUDA_CU_RESULT_H

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace rc::cu {

inline CUresult fromRuntime(cudaError_t e) {
  switch (e) {
  case cudaErrorMemoryAllocation:
    return CUDA_ERROR_OUT_OF_MEMORY;
  case cudaErrorInitializationError:
    return CUDA_ERROR_NOT_INITIALIZED;
  case cudaErrorInvalidPitchValue:
  case cudaErrorInvalidMemcpyDirection:
    return CUDA_ERROR_INVALID_VALUE;
  default:
    return CUresult(int(e));
  }
}

} // namespace rc::cu

#endif
