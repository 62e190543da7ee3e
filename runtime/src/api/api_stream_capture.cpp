// Streams as CUDA 12 describes them (docs/graphs.md): a stream's ID, its
// attributes copied to another, what a capture has made so far and what
// its next node will depend on, capture into an existing graph, and the
// thread's capture mode. Stream capture is recorded on the client, so
// every answer is local.
#include "api/global.h"
#include "core/enum_number.h"
#include "core/handle.h"
#include "core/unsupported.h"

#include <cstring>
#include <string>
#include <vector>

using rc::rt::GraphState;
using rc::rt::handleId;
using rc::rt::record;
using rc::rt::runtime;
using rc::rt::toHandle;

namespace {

// What cudaStreamGetCaptureInfo hands out lives until the thread's next
// call, as CUDA's does until the stream's next call.
thread_local std::vector<cudaGraphNode_t> reportedDeps;
thread_local std::vector<cudaGraphEdgeData> reportedEdges;

cudaError_t captureInfo(cudaStream_t stream, cudaStreamCaptureStatus *status,
                        unsigned long long *id, cudaGraph_t *graph,
                        const cudaGraphNode_t **deps,
                        const cudaGraphEdgeData **edges, size_t *count) {
  if (!status)
    return cudaErrorInvalidValue;
  unsigned long long captureId = 0;
  if (cudaError_t err = runtime().graphs().streamIsCapturing(stream, status,
                                                             &captureId, false))
    return err;
  if (id)
    *id = captureId;
  reportedDeps.clear();
  reportedEdges.clear();
  uint64_t graphId = 0;
  if (*status == cudaStreamCaptureStatusActive) {
    uint64_t wire = 0;
    if (cudaError_t err = runtime().streams().wireStream(stream, false, &wire))
      return err;
    std::vector<uint64_t> handles;
    cudaError_t err = runtime().withGraphs([&](GraphState &graphs) {
      return graphs.captureInfo(wire, &graphId, &handles);
    });
    if (err)
      return err;
    for (uint64_t h : handles)
      reportedDeps.push_back(toHandle<cudaGraphNode_t>(h));
    reportedEdges.resize(handles.size()); // full dependencies: all zeros
  }
  if (graph)
    *graph = toHandle<cudaGraph_t>(graphId);
  if (deps)
    *deps = reportedDeps.empty() ? nullptr : reportedDeps.data();
  if (edges)
    *edges = reportedEdges.empty() ? nullptr : reportedEdges.data();
  if (count)
    *count = reportedDeps.size();
  return cudaSuccess;
}

// Captured edges are full dependencies: other edge data is refused.
cudaError_t plainEdges(const cudaGraphEdgeData *data, size_t count,
                       const char *call) {
  static const cudaGraphEdgeData plain = {};
  for (size_t i = 0; data && i < count; ++i)
    if (std::memcmp(&data[i], &plain, sizeof plain) != 0)
      return rc::rt::reportUnsupported(
          (std::string(call) + " with edge data other than the default "
                               "(programmatic dependencies)")
              .c_str());
  return cudaSuccess;
}

std::vector<uint64_t> handlesOf(const cudaGraphNode_t *nodes, size_t count) {
  std::vector<uint64_t> out;
  for (size_t i = 0; nodes && i < count; ++i)
    out.push_back(handleId(nodes[i]));
  return out;
}

cudaError_t updateDependencies(cudaStream_t stream, const cudaGraphNode_t *deps,
                               size_t count, unsigned flags) {
  if ((count && !deps) || flags > cudaStreamSetCaptureDependencies)
    return cudaErrorInvalidValue;
  uint64_t wire = 0;
  if (cudaError_t err = runtime().streams().wireStream(stream, false, &wire))
    return err;
  std::vector<uint64_t> handles = handlesOf(deps, count);
  return runtime().withGraphs([&](GraphState &graphs) {
    return graphs.updateCaptureDependencies(
        wire, handles, flags == cudaStreamSetCaptureDependencies);
  });
}

// The thread's mode of interaction with captures, as exchanged.
thread_local cudaStreamCaptureMode threadCaptureMode =
    cudaStreamCaptureModeGlobal;

} // namespace

extern "C" {

// The ID the session knows the stream by: unique among the process's
// streams (the legacy stream's is 0, each thread's per-thread stream has
// its own).
cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long *streamId) {
  if (!streamId)
    return record(cudaErrorInvalidValue);
  uint64_t wire = 0;
  if (cudaError_t err = runtime().streams().wireStream(stream, false, &wire))
    return record(err);
  *streamId = wire;
  return cudaSuccess;
}

// Every attribute a stream takes (core/stream_attrs.cpp), read from
// `src` and set on `dst` in order.
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  const int attributes[] = {
      cudaLaunchAttributeAccessPolicyWindow,
      cudaLaunchAttributeSynchronizationPolicy, cudaLaunchAttributePriority,
      cudaLaunchAttributeMemSyncDomainMap, cudaLaunchAttributeMemSyncDomain};
  for (int a : attributes) {
    cudaLaunchAttributeValue value;
    if (cudaError_t err =
            runtime().streams().streamGetAttribute(src, a, &value, false))
      return record(err);
    if (cudaError_t err =
            runtime().streams().streamSetAttribute(dst, a, &value, false))
      return record(err);
  }
  return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
                                        cudaStreamCaptureStatus *status,
                                        unsigned long long *id,
                                        cudaGraph_t *graph,
                                        const cudaGraphNode_t **deps,
                                        size_t *numDeps) {
  return record(captureInfo(stream, status, id, graph, deps, nullptr, numDeps));
}

cudaError_t cudaStreamGetCaptureInfo_v3(
    cudaStream_t stream, cudaStreamCaptureStatus *status,
    unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
    const cudaGraphEdgeData **edgeData, size_t *numDeps) {
  return record(
      captureInfo(stream, status, id, graph, deps, edgeData, numDeps));
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                cudaGraphNode_t *deps,
                                                size_t numDeps,
                                                unsigned int flags) {
  return record(updateDependencies(stream, deps, numDeps, flags));
}

cudaError_t cudaStreamUpdateCaptureDependencies_v2(
    cudaStream_t stream, cudaGraphNode_t *deps,
    const cudaGraphEdgeData *edgeData, size_t numDeps, unsigned int flags) {
  if (cudaError_t err = plainEdges(edgeData, numDeps,
                                   "cudaStreamUpdateCaptureDependencies_v2"))
    return record(err);
  return record(updateDependencies(stream, deps, numDeps, flags));
}

// What the stream does from here on goes into `graph`, after `deps`.
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream,
                                          cudaGraph_t graph,
                                          const cudaGraphNode_t *deps,
                                          const cudaGraphEdgeData *edgeData,
                                          size_t numDeps,
                                          cudaStreamCaptureMode mode) {
  if (numDeps && !deps)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err =
          plainEdges(edgeData, numDeps, "cudaStreamBeginCaptureToGraph"))
    return record(err);
  uint64_t wire = 0;
  if (cudaError_t err = runtime().streams().wireStream(stream, false, &wire))
    return record(err);
  std::vector<uint64_t> handles = handlesOf(deps, numDeps);
  int number = rc::rt::enumNumber(mode);
  if (number < cudaStreamCaptureModeGlobal ||
      number > cudaStreamCaptureModeRelaxed)
    return record(cudaErrorInvalidValue);
  return record(runtime().withGraphs([&](GraphState &graphs) {
    return graphs.beginCaptureInto(wire, cudaStreamCaptureMode(number),
                                   handleId(graph), handles);
  }));
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode) {
  if (!mode)
    return record(cudaErrorInvalidValue);
  int number = rc::rt::enumNumber(*mode);
  if (number < cudaStreamCaptureModeGlobal ||
      number > cudaStreamCaptureModeRelaxed)
    return record(cudaErrorInvalidValue);
  cudaStreamCaptureMode previous = threadCaptureMode;
  threadCaptureMode = cudaStreamCaptureMode(number);
  *mode = previous;
  return cudaSuccess;
}

} // extern "C"
