// CUDA graphs on the Runtime (docs/graphs.md): capture is recorded here, on
// the client; the server only sees GraphInstantiate (the node list, once),
// GraphExecUpdate (the changed nodes only), GraphLaunch and GraphExecDestroy,
// all batched: none of them costs a round trip.
#include "core/handle.h"
#include "core/runtime.h"
#include "core/unsupported.h"
#include "graphs/graph_order.h"

#include <cstdio>

namespace rc::rt {

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
  uint64_t sid;
  if (cudaError_t err = streams_.connectedStreamLocked(stream, perThread, &sid))
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
  if (cudaError_t err = streams_.wireStreamLocked(stream, perThread, &sid))
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
  if (cudaError_t err = streams_.wireStreamLocked(stream, perThread, &sid))
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
  if (!graphs_.graph(handleId(graph)))
    return cudaErrorInvalidValue; // CUDA: invalid graph handle
  // Child graphs run as their nodes, in place of the child graph node.
  const Graph g = graphs_.flattened(handleId(graph));
  Exec ordered;
  if (!orderForExec(g, &ordered)) {
    std::fprintf(stderr, "remote-clang: cudaGraphInstantiate: the graph's "
                         "dependencies form a cycle\n");
    return cudaErrorInvalidValue;
  }
  graphMemoryOfExecLocked(g, &ordered);
  ordered.serverHeld = !ordered.onClient;
  uint64_t id = nextHandle_++;
  // An exec with client-side steps is replayed here at each launch; the
  // server never holds it.
  if (!ordered.onClient) {
    ensureDeviceLocked();
    flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
    std::vector<flatbuffers::Offset<wire::CommandEntry>> entries;
    entries.reserve(ordered.nodes.size());
    for (const GraphNode &n : ordered.nodes)
      entries.push_back(n.serialize(fbb));
    auto nv = fbb.CreateVector(entries);
    appendLocked(wire::Command::GraphInstantiate,
                 wire::CreateGraphInstantiate(fbb, id, nv).Union(),
                 {"cudaGraphInstantiate", 0});
    afterAppendLocked();
  }
  graphs_.addExec(id, std::move(ordered));
  *exec = toHandle<cudaGraphExec_t>(id);
  return cudaSuccess;
}

// The changed nodes of a server-side exec, by index: one batched command.
void Runtime::sendExecUpdateLocked(uint64_t exec,
                                   const std::vector<uint32_t> &indices,
                                   const NodeList &nodes) {
  ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  std::vector<flatbuffers::Offset<wire::CommandEntry>> entries;
  for (uint32_t i : indices)
    entries.push_back(nodes[i].serialize(fbb));
  auto iv = fbb.CreateVector(indices);
  auto nv = fbb.CreateVector(entries);
  appendLocked(wire::Command::GraphExecUpdate,
               wire::CreateGraphExecUpdate(fbb, exec, iv, nv).Union(),
               {"cudaGraphExecUpdate", 0});
  afterAppendLocked();
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
  Exec *current = graphs_.exec(handleId(exec));
  if (!current || !graphs_.graph(handleId(graph)))
    return cudaErrorInvalidValue;
  const Graph g = graphs_.flattened(handleId(graph));
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

cudaError_t Runtime::graphLaunch(cudaGraphExec_t exec, cudaStream_t stream,
                                 bool perThread) {
  NodeList steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cudaError_t err = ensureConnectedLocked())
      return err;
    Exec *e = graphs_.exec(handleId(exec));
    if (!e)
      return cudaErrorInvalidValue;
    uint64_t sid;
    if (cudaError_t err = streams_.wireStreamLocked(stream, perThread, &sid))
      return err;
    if (graphs_.capturing(sid)) {
      // A graph launched into a capture becomes part of it (CUDA adds a
      // child-graph node; a chain of its nodes orders the same way).
      for (size_t i = 0; i < e->nodes.size(); ++i)
        if (!e->disabled.count(e->handles[i]))
          if (cudaError_t err = graphs_.addNode(sid, e->nodes[i]))
            return err;
      return cudaSuccess;
    }
    launchedGraphMemoryLocked(*e);
    if (!e->onClient) {
      ensureDeviceLocked();
      appendLocked(
          wire::Command::GraphLaunch,
          wire::CreateGraphLaunch(batch_.fbb(), handleId(exec), sid).Union(),
          {"cudaGraphLaunch", 0});
      afterAppendLocked();
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
cudaError_t Runtime::replayOnClient(const NodeList &steps, cudaStream_t stream,
                                    bool perThread) {
  for (const GraphNode &n : steps) {
    if (n.host == HostStep::Function) {
      if (cudaError_t err = launchHostFunc(stream, n.fn, n.userData, perThread))
        return err;
      continue;
    }
    if (n.host == HostStep::EventRecord || n.host == HostStep::EventWait) {
      cudaError_t err =
          n.host == HostStep::EventRecord
              ? streams_.eventRecord(n.event, stream, perThread)
              : streams_.streamWaitEvent(stream, n.event, 0, perThread);
      if (err)
        return err;
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    cudaError_t err = cudaSuccess;
    if (n.host == HostStep::CopyToDevice)
      err = memcpyLocked(reinterpret_cast<void *>(uintptr_t(n.dst)), n.hostPtr,
                         n.size, cudaMemcpyHostToDevice, stream, true,
                         perThread, "cudaGraphLaunch (copy to device)");
    else if (n.host == HostStep::CopyToHost)
      err = memcpyLocked(n.hostPtr, reinterpret_cast<void *>(uintptr_t(n.src)),
                         n.size, cudaMemcpyDeviceToHost, stream, true,
                         perThread, "cudaGraphLaunch (copy to host)");
    else
      err = appendNodeLocked(n, stream, perThread);
    if (err)
      return err;
  }
  return cudaSuccess;
}

cudaError_t Runtime::appendNodeLocked(const GraphNode &n, cudaStream_t stream,
                                      bool perThread) {
  uint64_t sid;
  if (cudaError_t err = streams_.wireStreamLocked(stream, perThread, &sid))
    return err;
  ensureDeviceLocked();
  bool launch = n.type == wire::Command::Launch;
  appendLocked(
      n.type, n.command(batch_.fbb(), sid),
      {launch ? "launch" : "cudaGraphLaunch", launch ? n.kernelId : 0});
  afterAppendLocked();
  return cudaSuccess;
}

// A graph lives only here: destroying it costs nothing.
cudaError_t Runtime::graphDestroy(cudaGraph_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  const Graph *g = graphs_.graph(handleId(graph));
  if (!g)
    return cudaErrorInvalidValue;
  std::vector<uint64_t> allocations;
  for (const GraphNode &n : g->nodes)
    if (n.memory == MemoryStep::Alloc)
      allocations.push_back(n.dst);
  graphs_.destroyGraph(handleId(graph));
  for (uint64_t a : allocations)
    releaseGraphMemoryLocked(a);
  return cudaSuccess;
}

cudaError_t Runtime::graphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = unavailableLocked())
    return err;
  Exec *e = graphs_.exec(handleId(exec));
  if (!e)
    return cudaErrorInvalidValue;
  bool onServer = e->serverHeld;
  std::vector<uint64_t> allocations = e->allocations;
  graphs_.destroyExec(handleId(exec));
  for (uint64_t a : allocations)
    releaseGraphMemoryLocked(a);
  if (!onServer)
    return cudaSuccess;
  appendLocked(
      wire::Command::GraphExecDestroy,
      wire::CreateGraphExecDestroy(batch_.fbb(), handleId(exec)).Union(),
      {"cudaGraphExecDestroy", 0});
  afterAppendLocked();
  return cudaSuccess;
}

} // namespace rc::rt
