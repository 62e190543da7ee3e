// CUDA graphs on the Runtime (docs/graphs.md): capture is recorded here, on
// the client; the server only sees GraphInstantiate (the node list, once),
// GraphExecUpdate (the changed nodes only), GraphLaunch and GraphExecDestroy,
// all batched: none of them costs a round trip.
#include "core/graphs.h"
#include "core/handle.h"
#include "core/runtime.h"
#include "core/unsupported.h"
#include "graphs/graph_order.h"

#include <cstdio>

namespace rc::rt {

cudaError_t Graphs::captureLocked(uint64_t stream, GraphNode node,
                                  bool *captured) {
  *captured = state_.capturing(stream);
  if (!*captured)
    return cudaSuccess;
  return state_.addNode(stream, std::move(node));
}

cudaError_t Graphs::refuseInCaptureLocked(uint64_t stream, const char *call) {
  if (!state_.capturing(stream))
    return cudaSuccess;
  state_.invalidate(stream);
  std::fprintf(stderr,
               "remote-clang: %s on a capturing stream is not allowed; the "
               "capture is invalidated (cudaErrorStreamCaptureUnsupported)\n",
               call);
  return cudaErrorStreamCaptureUnsupported;
}

cudaError_t Graphs::streamBeginCapture(cudaStream_t stream,
                                       cudaStreamCaptureMode mode,
                                       bool perThread) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t sid;
  if (cudaError_t err =
          rt_.streams_.connectedStreamLocked(stream, perThread, &sid))
    return err;
  return state_.beginCapture(sid, mode, rt_.nextHandle_++);
}

cudaError_t Graphs::streamEndCapture(cudaStream_t stream, cudaGraph_t *graph,
                                     bool perThread) {
  if (!graph)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t sid, gid = 0;
  if (cudaError_t err = rt_.streams_.wireStreamLocked(stream, perThread, &sid))
    return err;
  cudaError_t err = state_.endCapture(sid, &gid);
  *graph = toHandle<cudaGraph_t>(gid);
  return err;
}

// Answered locally: capture state lives here.
cudaError_t Graphs::streamIsCapturing(cudaStream_t stream,
                                      cudaStreamCaptureStatus *status,
                                      unsigned long long *id, bool perThread) {
  if (!status)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (!state_.anyCapture()) {
    // Nothing captures (the common case, and always without a server).
    *status = cudaStreamCaptureStatusNone;
    if (id)
      *id = 0;
    return cudaSuccess;
  }
  uint64_t sid;
  if (cudaError_t err = rt_.streams_.wireStreamLocked(stream, perThread, &sid))
    return err;
  *status = state_.status(sid);
  if (id)
    *id = state_.captureId(sid);
  return cudaSuccess;
}

cudaError_t Graphs::graphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph) {
  if (!exec)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  if (!state_.graph(handleId(graph)))
    return cudaErrorInvalidValue; // CUDA: invalid graph handle
  // Child graphs run as their nodes, in place of the child graph node.
  const Graph g = state_.flattened(handleId(graph));
  Exec ordered;
  if (!orderForExec(g, &ordered)) {
    std::fprintf(stderr, "remote-clang: cudaGraphInstantiate: the graph's "
                         "dependencies form a cycle\n");
    return cudaErrorInvalidValue;
  }
  graphMemoryOfExecLocked(g, &ordered);
  ordered.serverHeld = !ordered.onClient;
  uint64_t id = rt_.nextHandle_++;
  // An exec with client-side steps is replayed here at each launch; the
  // server never holds it.
  if (!ordered.onClient) {
    rt_.ensureDeviceLocked();
    flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
    std::vector<flatbuffers::Offset<wire::CommandEntry>> entries;
    entries.reserve(ordered.nodes.size());
    for (const GraphNode &n : ordered.nodes)
      entries.push_back(n.serialize(fbb));
    auto nv = fbb.CreateVector(entries);
    rt_.appendLocked(wire::Command::GraphInstantiate,
                     wire::CreateGraphInstantiate(fbb, id, nv).Union(),
                     {"cudaGraphInstantiate", 0});
    rt_.afterAppendLocked();
  }
  state_.addExec(id, std::move(ordered));
  *exec = toHandle<cudaGraphExec_t>(id);
  return cudaSuccess;
}

// The changed nodes of a server-side exec, by index: one batched command.
void Graphs::sendExecUpdateLocked(uint64_t exec,
                                  const std::vector<uint32_t> &indices,
                                  const NodeList &nodes) {
  rt_.ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  std::vector<flatbuffers::Offset<wire::CommandEntry>> entries;
  for (uint32_t i : indices)
    entries.push_back(nodes[i].serialize(fbb));
  auto iv = fbb.CreateVector(indices);
  auto nv = fbb.CreateVector(entries);
  rt_.appendLocked(wire::Command::GraphExecUpdate,
                   wire::CreateGraphExecUpdate(fbb, exec, iv, nv).Union(),
                   {"cudaGraphExecUpdate", 0});
  rt_.afterAppendLocked();
}

// Decided here, as CUDA would, without a round trip: an incompatible graph
// fails at the call; a compatible one sends only the nodes that differ
// (nothing at all when the graph is identical, e.g. a re-captured token
// whose pointers did not move).
cudaError_t Graphs::graphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                    cudaGraphExecUpdateResultInfo *info) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  Exec *current = state_.exec(handleId(exec));
  if (!current || !state_.graph(handleId(graph)))
    return cudaErrorInvalidValue;
  const Graph g = state_.flattened(handleId(graph));
  Exec next;
  std::vector<uint32_t> changed;
  size_t errorIndex = 0;
  cudaGraphExecUpdateResult result =
      orderForExec(g, &next)
          ? compareForUpdate(current->nodes, next.nodes, &changed, &errorIndex)
          : cudaGraphExecUpdateErrorTopologyChanged;
  graphMemoryOfExecLocked(g, &next);
  if (result == cudaGraphExecUpdateSuccess &&
      (next.allocations != current->allocations ||
       next.frees != current->frees))
    result = cudaGraphExecUpdateErrorNotSupported; // CUDA: memory nodes stay
  if (info) {
    info->result = result;
    bool named = result != cudaGraphExecUpdateSuccess &&
                 result != cudaGraphExecUpdateErrorTopologyChanged;
    info->errorNode =
        named ? toHandle<cudaGraphNode_t>(next.handles[errorIndex]) : nullptr;
    info->errorFromNode = nullptr;
  }
  if (result != cudaGraphExecUpdateSuccess)
    return cudaErrorGraphExecUpdateFailure;
  if (!changed.empty() && !current->onClient)
    sendExecUpdateLocked(handleId(exec), changed, next.nodes);
  // The exec keeps answering to the node handles it was instantiated from.
  current->nodes = std::move(next.nodes);
  return cudaSuccess;
}

cudaError_t Graphs::graphLaunch(cudaGraphExec_t exec, cudaStream_t stream,
                                bool perThread) {
  NodeList steps;
  {
    std::lock_guard<std::mutex> lock(rt_.mu_);
    if (cudaError_t err = rt_.ensureConnectedLocked())
      return err;
    Exec *e = state_.exec(handleId(exec));
    if (!e)
      return cudaErrorInvalidValue;
    uint64_t sid;
    if (cudaError_t err =
            rt_.streams_.wireStreamLocked(stream, perThread, &sid))
      return err;
    if (state_.capturing(sid)) {
      // A graph launched into a capture becomes part of it (CUDA adds a
      // child-graph node; a chain of its nodes orders the same way).
      for (size_t i = 0; i < e->nodes.size(); ++i)
        if (!e->disabled.count(e->handles[i]))
          if (cudaError_t err = state_.addNode(sid, e->nodes[i]))
            return err;
      return cudaSuccess;
    }
    launchedGraphMemoryLocked(*e);
    if (!e->onClient) {
      rt_.ensureDeviceLocked();
      rt_.appendLocked(
          wire::Command::GraphLaunch,
          wire::CreateGraphLaunch(rt_.batch_.fbb(), handleId(exec), sid)
              .Union(),
          {"cudaGraphLaunch", 0});
      rt_.afterAppendLocked();
      return cudaSuccess;
    }
    // A host function may destroy the exec; disabled nodes do nothing.
    for (size_t i = 0; i < e->nodes.size(); ++i)
      if (!e->disabled.count(e->handles[i]))
        steps.push_back(e->nodes[i]);
  }
  return replayOnClient(steps, stream, perThread);
}

// An exec with client-side steps runs as the stream commands its nodes
// stand for, in its order: device nodes are batched as usual, copies read
// or fill host memory as cudaMemcpyAsync does, and a host node runs as
// cudaLaunchHostFunc (after the stream's earlier work, on this thread).
cudaError_t Graphs::replayOnClient(const NodeList &steps, cudaStream_t stream,
                                   bool perThread) {
  for (const GraphNode &n : steps) {
    if (n.host == HostStep::Function) {
      if (cudaError_t err =
              rt_.launchHostFunc(stream, n.fn, n.userData, perThread))
        return err;
      continue;
    }
    if (n.host == HostStep::EventRecord || n.host == HostStep::EventWait) {
      cudaError_t err =
          n.host == HostStep::EventRecord
              ? rt_.streams_.eventRecord(n.event, stream, perThread)
              : rt_.streams_.streamWaitEvent(stream, n.event, 0, perThread);
      if (err)
        return err;
      continue;
    }
    std::lock_guard<std::mutex> lock(rt_.mu_);
    cudaError_t err = cudaSuccess;
    if (n.host == HostStep::CopyToDevice)
      err =
          rt_.memcpyLocked(reinterpret_cast<void *>(uintptr_t(n.dst)),
                           n.hostPtr, n.size, cudaMemcpyHostToDevice, stream,
                           true, perThread, "cudaGraphLaunch (copy to device)");
    else if (n.host == HostStep::CopyToHost)
      err = rt_.memcpyLocked(n.hostPtr,
                             reinterpret_cast<void *>(uintptr_t(n.src)), n.size,
                             cudaMemcpyDeviceToHost, stream, true, perThread,
                             "cudaGraphLaunch (copy to host)");
    else
      err = appendNodeLocked(n, stream, perThread);
    if (err)
      return err;
  }
  return cudaSuccess;
}

cudaError_t Graphs::appendNodeLocked(const GraphNode &n, cudaStream_t stream,
                                     bool perThread) {
  uint64_t sid;
  if (cudaError_t err = rt_.streams_.wireStreamLocked(stream, perThread, &sid))
    return err;
  rt_.ensureDeviceLocked();
  bool launch = n.type == wire::Command::Launch;
  rt_.appendLocked(
      n.type, n.command(rt_.batch_.fbb(), sid),
      {launch ? "launch" : "cudaGraphLaunch", launch ? n.kernelId : 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

// A graph lives only here: destroying it costs nothing.
cudaError_t Graphs::graphDestroy(cudaGraph_t graph) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  const Graph *g = state_.graph(handleId(graph));
  if (!g)
    return cudaErrorInvalidValue;
  std::vector<uint64_t> allocations;
  for (const GraphNode &n : g->nodes)
    if (n.memory == MemoryStep::Alloc)
      allocations.push_back(n.dst);
  state_.destroyGraph(handleId(graph));
  for (uint64_t a : allocations)
    releaseGraphMemoryLocked(a);
  return cudaSuccess;
}

cudaError_t Graphs::graphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.unavailableLocked())
    return err;
  Exec *e = state_.exec(handleId(exec));
  if (!e)
    return cudaErrorInvalidValue;
  bool onServer = e->serverHeld;
  std::vector<uint64_t> allocations = e->allocations;
  state_.destroyExec(handleId(exec));
  for (uint64_t a : allocations)
    releaseGraphMemoryLocked(a);
  if (!onServer)
    return cudaSuccess;
  rt_.appendLocked(
      wire::Command::GraphExecDestroy,
      wire::CreateGraphExecDestroy(rt_.batch_.fbb(), handleId(exec)).Union(),
      {"cudaGraphExecDestroy", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

} // namespace rc::rt
