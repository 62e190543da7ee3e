// The static library's part of `separable`: a __device__ function and
// variable that only other translation units' device code uses. The host
// link never pulls this object in; the device link does.
#include "separable.h"

__device__ float scaleFactor = 3.0f;

__device__ float scaleBy(float x) { return x * scaleFactor; }
