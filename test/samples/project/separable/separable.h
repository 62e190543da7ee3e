// Device symbols `separable`'s translation units share across the device link.
#pragma once

extern __device__ float scaleFactor;
extern __device__ unsigned int helperCalls;
__device__ float scaleBy(float x);
__device__ float twiceScaled(float x);
