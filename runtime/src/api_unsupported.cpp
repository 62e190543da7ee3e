// Calls declared by cuda_runtime_api.h that the remote runtime does not
// implement yet. Each fails at the call with cudaErrorNotSupported and a
// one-time "remote-clang: <call> is not supported by the remote runtime",
// never silently. (Graphs, occupancy and function attributes are later
// issues; managed/mapped memory cannot work across the wire.)
#include "global.h"
#include "unsupported.h"

#define RC_UNSUPPORTED(name, ...)                                              \
  cudaError_t name(__VA_ARGS__) {                                              \
    return rc::rt::record(rc::rt::reportUnsupported(#name));                   \
  }

extern "C" {

RC_UNSUPPORTED(cudaMallocManaged, void **, size_t, unsigned int)
RC_UNSUPPORTED(cudaHostGetDevicePointer, void **, void *, unsigned int)
RC_UNSUPPORTED(cudaMallocAsync, void **, size_t, cudaStream_t)
RC_UNSUPPORTED(cudaFreeAsync, void *, cudaStream_t)
RC_UNSUPPORTED(cudaLaunchHostFunc, cudaStream_t, cudaHostFn_t, void *)
RC_UNSUPPORTED(cudaStreamAddCallback, cudaStream_t, cudaStreamCallback_t,
               void *, unsigned int)
RC_UNSUPPORTED(cudaMemcpy2D, void *, size_t, const void *, size_t, size_t,
               size_t, cudaMemcpyKind)
RC_UNSUPPORTED(cudaMemcpy2DAsync, void *, size_t, const void *, size_t, size_t,
               size_t, cudaMemcpyKind, cudaStream_t)
RC_UNSUPPORTED(cudaMemcpyPeer, void *, int, const void *, int, size_t)
RC_UNSUPPORTED(cudaMemcpyPeerAsync, void *, int, const void *, int, size_t,
               cudaStream_t)
RC_UNSUPPORTED(cudaDeviceEnablePeerAccess, int, unsigned int)
RC_UNSUPPORTED(cudaDeviceDisablePeerAccess, int)
RC_UNSUPPORTED(cudaFuncGetAttributes, cudaFuncAttributes *, const void *)
RC_UNSUPPORTED(cudaFuncSetAttribute, const void *, cudaFuncAttribute, int)
RC_UNSUPPORTED(cudaOccupancyMaxActiveBlocksPerMultiprocessor, int *,
               const void *, int, size_t)
RC_UNSUPPORTED(cudaStreamBeginCapture, cudaStream_t, cudaStreamCaptureMode)
RC_UNSUPPORTED(cudaStreamEndCapture, cudaStream_t, cudaGraph_t *)
RC_UNSUPPORTED(cudaGraphInstantiate, cudaGraphExec_t *, cudaGraph_t,
               unsigned long long)
RC_UNSUPPORTED(cudaGraphLaunch, cudaGraphExec_t, cudaStream_t)
RC_UNSUPPORTED(cudaGraphExecUpdate, cudaGraphExec_t, cudaGraph_t,
               cudaGraphExecUpdateResultInfo *)
RC_UNSUPPORTED(cudaGraphDestroy, cudaGraph_t)
RC_UNSUPPORTED(cudaGraphExecDestroy, cudaGraphExec_t)
RC_UNSUPPORTED(cudaGetDriverEntryPoint, const char *, void **,
               unsigned long long, cudaDriverEntryPointQueryResult *)
RC_UNSUPPORTED(cudaIpcGetMemHandle, cudaIpcMemHandle_t *, void *)
RC_UNSUPPORTED(cudaIpcOpenMemHandle, void **, cudaIpcMemHandle_t, unsigned int)

} // extern "C"
