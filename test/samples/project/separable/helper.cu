// Second translation unit of `separable`: calls into the static library and
// counts its calls in a __device__ variable the main program reads back.
#include "separable.h"

__device__ unsigned int helperCalls;

__device__ float twiceScaled(float x) {
  atomicAdd(&helperCalls, 1u);
  return 2.0f * scaleBy(x);
}
