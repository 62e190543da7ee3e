// Exported graph and stream-capture calls (docs/graphs.md), including the
// per-thread default stream variants (--default-stream per-thread).
#include "api/global.h"
#include "core/handle.h"
#include "core/unsupported.h"
#include "graphs/user_objects.h"

using rc::rt::handleId;
using rc::rt::record;
using rc::rt::runtime;
using rc::rt::UserObjects;

extern "C" {

cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                   cudaStreamCaptureMode mode) {
  return record(runtime().graphs().streamBeginCapture(stream, mode, false));
}
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                        cudaStreamCaptureMode mode) {
  return record(runtime().graphs().streamBeginCapture(stream, mode, true));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph) {
  return record(runtime().graphs().streamEndCapture(stream, graph, false));
}
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *graph) {
  return record(runtime().graphs().streamEndCapture(stream, graph, true));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  cudaStreamCaptureStatus *status) {
  return record(
      runtime().graphs().streamIsCapturing(stream, status, nullptr, false));
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       cudaStreamCaptureStatus *status) {
  return record(
      runtime().graphs().streamIsCapturing(stream, status, nullptr, true));
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
  if (cudaError_t err = runtime().graphs().graphInstantiate(exec, graph))
    return record(err);
  // The exec answers its flags and holds its graph's user objects.
  runtime().withGraphs([&](rc::rt::GraphState &graphs) {
    graphs.exec(handleId(*exec))->flags = flags;
    return 0;
  });
  UserObjects::instance().copyReferences(handleId(graph), handleId(*exec));
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec,
                                          cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo *info) {
  return record(runtime().graphs().graphExecUpdate(exec, graph, info));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return record(runtime().graphs().graphLaunch(exec, stream, false));
}
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return record(runtime().graphs().graphLaunch(exec, stream, true));
}

// A graph's and an exec's references to user objects go with them.
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  cudaError_t err = runtime().graphs().graphDestroy(graph);
  if (err == cudaSuccess)
    UserObjects::instance().ownerGone(handleId(graph));
  return record(err);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  cudaError_t err = runtime().graphs().graphExecDestroy(exec);
  if (err == cudaSuccess)
    UserObjects::instance().ownerGone(handleId(exec));
  return record(err);
}

} // extern "C"
