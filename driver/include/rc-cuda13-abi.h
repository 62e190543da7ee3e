/* remote-clang: CUDA 13 programs on remote-clang's runtime
   (docs/design/cuda-versions.md). Included first by the CUDA 13 overlay's
   cuda_runtime_api.h.

   CUDA 13 gave these runtime API names a new ABI: CUDA 12 called each of
   them so with another one, and remote-clang's one runtime library serves
   CUDA 12 and 13 programs alike. Each name is steered to the runtime's
   symbol of CUDA 13's ABI: the CUDA 12 versioned symbol with the same
   parameters, or, for the calls taking CUDA 13's shorter cudaDeviceProp,
   the runtime's own conversions (runtime/cuda13/gen_device_prop.py). The
   list is what a comparison of the two toolkits' declarations found (the
   record says how); cuda.h needs no such list: its names were versioned
   symbols in CUDA 12 already. */
#ifndef RC_CUDA13_ABI_H
#define RC_CUDA13_ABI_H

#define cudaMemAdvise cudaMemAdvise_v2
#define cudaMemPrefetchAsync cudaMemPrefetchAsync_v2
#define cudaGraphAddDependencies cudaGraphAddDependencies_v2
#define cudaGraphAddNode cudaGraphAddNode_v2
#define cudaGraphGetEdges cudaGraphGetEdges_v2
#define cudaGraphNodeGetDependencies cudaGraphNodeGetDependencies_v2
#define cudaGraphNodeGetDependentNodes cudaGraphNodeGetDependentNodes_v2
#define cudaGraphRemoveDependencies cudaGraphRemoveDependencies_v2
#define cudaStreamUpdateCaptureDependencies                                    \
  cudaStreamUpdateCaptureDependencies_v2
#define cudaStreamGetCaptureInfo cudaStreamGetCaptureInfo_v3
#define cudaSignalExternalSemaphoresAsync cudaSignalExternalSemaphoresAsync_v2
#define cudaWaitExternalSemaphoresAsync cudaWaitExternalSemaphoresAsync_v2
#define cudaGetDeviceProperties __rc_cudaGetDeviceProperties_cuda13
#define cudaChooseDevice __rc_cudaChooseDevice_cuda13

#endif
