// CUDA graphs on the Runtime (docs/graphs.md): capture is recorded here, on
// the client; the server only sees GraphInstantiate (the node list, once),
// GraphExecUpdate (the changed nodes only), GraphLaunch and GraphExecDestroy,
// all batched: none of them costs a round trip.
#include "api/unsupported.h"
#include "core/runtime.h"

#include <cstdio>

namespace rc::rt {

namespace {
uint64_t handleId(const void *h) { return uint64_t(uintptr_t(h)); }
template <typename T> T toHandle(uint64_t id) {
  return reinterpret_cast<T>(uintptr_t(id));
}
} // namespace

cudaError_t Runtime::captureLocked(uint64_t stream, GraphNode node,
                                   bool *captured) {
  *captured = graphs_.capturing(stream);
  if (!*captured)
    return cudaSuccess;
  return graphs_.addNode(stream, std::move(node));
}

cudaError_t Runtime::refuseInCaptureLocked(uint64_t stream, const char *call) {
  if (!graphs_.capturing(stream))
    return cudaSuccess;
  graphs_.invalidate(stream);
  std::fprintf(stderr,
               "remote-clang: %s on a capturing stream is not allowed; the "
               "capture is invalidated (cudaErrorStreamCaptureUnsupported)\n",
               call);
  return cudaErrorStreamCaptureUnsupported;
}

cudaError_t Runtime::streamBeginCapture(cudaStream_t stream,
                                        cudaStreamCaptureMode mode,
                                        bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t sid;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  return graphs_.beginCapture(sid, mode, nextHandle_++);
}

cudaError_t Runtime::streamEndCapture(cudaStream_t stream, cudaGraph_t *graph,
                                      bool perThread) {
  if (!graph)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t sid, gid = 0;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  cudaError_t err = graphs_.endCapture(sid, &gid);
  *graph = toHandle<cudaGraph_t>(gid);
  return err;
}

// Answered locally: capture state lives here.
cudaError_t Runtime::streamIsCapturing(cudaStream_t stream,
                                       cudaStreamCaptureStatus *status,
                                       unsigned long long *id, bool perThread) {
  if (!status)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (!graphs_.anyCapture()) {
    // Nothing captures (the common case, and always without a server).
    *status = cudaStreamCaptureStatusNone;
    if (id)
      *id = 0;
    return cudaSuccess;
  }
  uint64_t sid;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  *status = graphs_.status(sid);
  if (id)
    *id = graphs_.captureId(sid);
  return cudaSuccess;
}

cudaError_t Runtime::graphInstantiate(cudaGraphExec_t *exec,
                                      cudaGraph_t graph) {
  if (!exec)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  const NodeList *nodes = graphs_.graph(handleId(graph));
  if (!nodes)
    return cudaErrorInvalidValue; // CUDA: invalid graph handle
  ensureDeviceLocked();
  uint64_t id = nextHandle_++;
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  std::vector<flatbuffers::Offset<wire::CommandEntry>> entries;
  entries.reserve(nodes->size());
  for (const GraphNode &n : *nodes)
    entries.push_back(n.serialize(fbb));
  auto nv = fbb.CreateVector(entries);
  appendLocked(wire::Command::GraphInstantiate,
               wire::CreateGraphInstantiate(fbb, id, nv).Union(),
               {"cudaGraphInstantiate", 0});
  graphs_.addExec(id, *nodes);
  *exec = toHandle<cudaGraphExec_t>(id);
  afterAppendLocked();
  return cudaSuccess;
}

// Decided here, as CUDA would, without a round trip: an incompatible graph
// fails at the call; a compatible one sends only the nodes that differ
// (nothing at all when the graph is identical, e.g. a re-captured token
// whose pointers did not move).
cudaError_t Runtime::graphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                     cudaGraphExecUpdateResultInfo *info) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  NodeList *current = graphs_.exec(handleId(exec));
  const NodeList *next = graphs_.graph(handleId(graph));
  if (!current || !next)
    return cudaErrorInvalidValue;
  std::vector<uint32_t> changed;
  size_t errorIndex = 0;
  cudaGraphExecUpdateResult result =
      compareForUpdate(*current, *next, &changed, &errorIndex);
  if (info) {
    info->result = result;
    // Nodes have no client handles (nothing exposes them yet).
    info->errorNode = nullptr;
    info->errorFromNode = nullptr;
  }
  if (result != cudaGraphExecUpdateSuccess)
    return cudaErrorGraphExecUpdateFailure;
  if (changed.empty())
    return cudaSuccess;
  ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  std::vector<flatbuffers::Offset<wire::CommandEntry>> entries;
  for (uint32_t i : changed)
    entries.push_back((*next)[i].serialize(fbb));
  auto iv = fbb.CreateVector(changed);
  auto nv = fbb.CreateVector(entries);
  appendLocked(wire::Command::GraphExecUpdate,
               wire::CreateGraphExecUpdate(fbb, handleId(exec), iv, nv).Union(),
               {"cudaGraphExecUpdate", 0});
  *current = *next;
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::graphLaunch(cudaGraphExec_t exec, cudaStream_t stream,
                                 bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  NodeList *nodes = graphs_.exec(handleId(exec));
  if (!nodes)
    return cudaErrorInvalidValue;
  uint64_t sid;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  if (graphs_.capturing(sid)) {
    // A graph launched into a capture becomes part of it (CUDA adds a
    // child-graph node; a chain of its nodes orders the same way).
    for (const GraphNode &n : *nodes)
      if (cudaError_t err = graphs_.addNode(sid, n))
        return err;
    return cudaSuccess;
  }
  ensureDeviceLocked();
  appendLocked(
      wire::Command::GraphLaunch,
      wire::CreateGraphLaunch(batch_.fbb(), handleId(exec), sid).Union(),
      {"cudaGraphLaunch", 0});
  afterAppendLocked();
  return cudaSuccess;
}

// A graph lives only here: destroying it costs nothing.
cudaError_t Runtime::graphDestroy(cudaGraph_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  return graphs_.destroyGraph(handleId(graph)) ? cudaSuccess
                                               : cudaErrorInvalidValue;
}

cudaError_t Runtime::graphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = unavailableLocked())
    return err;
  if (!graphs_.destroyExec(handleId(exec)))
    return cudaErrorInvalidValue;
  appendLocked(
      wire::Command::GraphExecDestroy,
      wire::CreateGraphExecDestroy(batch_.fbb(), handleId(exec)).Union(),
      {"cudaGraphExecDestroy", 0});
  afterAppendLocked();
  return cudaSuccess;
}

} // namespace rc::rt
