// Exported graph and stream-capture calls (docs/graphs.md), including the
// per-thread default stream variants (--default-stream per-thread).
#include "api/global.h"
#include "api/unsupported.h"

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                   cudaStreamCaptureMode mode) {
  return record(runtime().streamBeginCapture(stream, mode, false));
}
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                        cudaStreamCaptureMode mode) {
  return record(runtime().streamBeginCapture(stream, mode, true));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph) {
  return record(runtime().streamEndCapture(stream, graph, false));
}
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *graph) {
  return record(runtime().streamEndCapture(stream, graph, true));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  cudaStreamCaptureStatus *status) {
  return record(runtime().streamIsCapturing(stream, status, nullptr, false));
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       cudaStreamCaptureStatus *status) {
  return record(runtime().streamIsCapturing(stream, status, nullptr, true));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  // Auto-free concerns allocation nodes (none here), upload and priority
  // only tune; device launch would need the graph on the device side.
  const unsigned long long known = cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                   cudaGraphInstantiateFlagUpload |
                                   cudaGraphInstantiateFlagUseNodePriority;
  if (flags & cudaGraphInstantiateFlagDeviceLaunch)
    return record(rc::rt::reportUnsupported(
        "cudaGraphInstantiate with cudaGraphInstantiateFlagDeviceLaunch"));
  if (flags & ~known)
    return record(cudaErrorInvalidValue);
  return record(runtime().graphInstantiate(exec, graph));
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec,
                                          cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo *info) {
  return record(runtime().graphExecUpdate(exec, graph, info));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return record(runtime().graphLaunch(exec, stream, false));
}
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return record(runtime().graphLaunch(exec, stream, true));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return record(runtime().graphDestroy(graph));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  return record(runtime().graphExecDestroy(exec));
}

} // extern "C"
