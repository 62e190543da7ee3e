// Client-side CUDA graphs: stream capture, graphs built node by node, and
// executable graphs as plain node lists (docs/graphs.md). Nothing here talks
// to the server; the Runtime (core/graph_runtime.cpp,
// core/graph_build_runtime.cpp) decides what goes on the wire.
//
// While a stream captures, the async work appended for it becomes a node of
// the capture's graph instead of a batch command, each after the previous
// one (work joined from other streams through events is ordered by when it
// was issued), which respects every dependency the application expressed.
// A graph built with cudaGraphAdd*Node keeps the dependencies it was given;
// instantiation puts its nodes in one valid order (graph_order.h).
#ifndef RC_RT_GRAPH_STATE_H
#define RC_RT_GRAPH_STATE_H

#include "protocol_generated.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace rc::rt {

// Serializes a library's command (a cuBLAS GEMM) for the given wire stream.
using LibraryCommand = std::function<flatbuffers::Offset<void>(
    flatbuffers::FlatBufferBuilder &, uint64_t wireStream)>;

// Work a node does on the client when the graph runs: host memory and host
// functions are here, so such nodes never reach the server's graph. An
// event node is the stream call it stands for, issued when the graph runs
// (the server's graphs hold no events).
enum class HostStep : uint8_t {
  None,
  Function,     // a host node: fn(userData)
  CopyToDevice, // hostPtr -> dst
  CopyToHost,   // src -> hostPtr
  EventRecord,  // cudaEventRecord(event, the launch's stream)
  EventWait,    // cudaStreamWaitEvent(the launch's stream, event)
};

// A graph memory node (docs/graphs.md, "Memory nodes"): its allocation was
// made when the node was, so at launch it has nothing to do on the device.
enum class MemoryStep : uint8_t {
  None,
  Alloc, // dst, size: the allocation
  Free,  // dst: the allocation freed
};

// One graph node: a Launch, Memset or MemcpyD2D with the fields it carries
// on the wire (the stream is the graph's, so it is not part of the node),
// a library command (CublasGemm, LibCall) kept as its serializer, a host
// step, or nothing (an empty node: type NONE, host None).
struct GraphNode {
  wire::Command type = wire::Command::NONE;
  HostStep host = HostStep::None;
  uint64_t kernelId = 0; // Launch
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedMem = 0;
  bool cooperative = false;
  bool programmaticSerialization = false;
  std::vector<uint8_t> args;
  uint64_t dst = 0; // Memset, MemcpyD2D
  uint64_t src = 0; // MemcpyD2D
  uint64_t size = 0;
  uint8_t value = 0;                 // Memset
  LibraryCommand library;            // owns what it serializes
  std::vector<uint8_t> libraryBytes; // its serialization: node identity
  cudaHostFn_t fn = nullptr;         // HostStep::Function
  void *userData = nullptr;
  void *hostPtr = nullptr;     // HostStep::CopyToDevice / CopyToHost
  cudaEvent_t event = nullptr; // HostStep::EventRecord / EventWait
  MemoryStep memory = MemoryStep::None;
  // A child graph node: the graph (GraphState's, owned by the node) whose
  // nodes instantiation puts in its place.
  uint64_t childGraph = 0;

  // A copy node of a resolved direction (not cudaMemcpyDefault, not host
  // to host). Host memory is only on the client, so a copy from or to it is
  // a step the client runs when the graph does: CUDA too reads and writes
  // the host side at launch, not when the node is made.
  static GraphNode copy(void *dst, const void *src, size_t count,
                        cudaMemcpyKind kind);
  // A byte memset node.
  static GraphNode memset(void *dst, uint8_t value, size_t count);
  // A library's command (CublasGemm, LibCall): `build` is kept (it must own
  // what it serializes) and its bytes are the node's identity.
  static GraphNode libraryCommand(wire::Command type, LibraryCommand build);
  bool empty() const {
    return type == wire::Command::NONE && host == HostStep::None &&
           childGraph == 0;
  }
  bool runsOnClient() const { return host != HostStep::None; }
  // What cudaGraphNodeGetType says of it.
  cudaGraphNodeType kind() const;
  bool operator==(const GraphNode &o) const;
  bool operator!=(const GraphNode &o) const { return !(*this == o); }
  // The device node's command for `stream`, built in `fbb`.
  flatbuffers::Offset<void> command(flatbuffers::FlatBufferBuilder &fbb,
                                    uint64_t stream) const;
  // The device node as a graph entry (stream 0) built in `fbb`.
  flatbuffers::Offset<wire::CommandEntry>
  serialize(flatbuffers::FlatBufferBuilder &fbb) const;
};

using NodeList = std::vector<GraphNode>;

// A graph as the application built it: nodes in creation order, each with
// the nodes it depends on and its handle (cudaGraphNode_t).
struct Graph {
  NodeList nodes;
  std::vector<std::vector<uint32_t>> deps;
  std::vector<uint64_t> handles;
  uint64_t clonedFrom = 0; // cudaGraphClone's source (cudaGraphNodeFindInClone)
  // Of a graph with its child graphs' nodes in place (GraphState::
  // flattened): the node of the original graph each node stands for.
  std::vector<uint64_t> owners;
};

// An executable graph: the graph's non-empty nodes in an order that keeps
// every dependency, and the handle each came from (exec node updates name
// the graph's nodes). With a node that runs on the client the exec is
// replayed step by step at each launch instead of living on the server.
struct Exec {
  NodeList nodes;
  std::vector<uint64_t> handles;
  std::vector<uint64_t> owners; // the instantiated graph's node of each
  bool onClient = false;
  // The server holds a copy (GraphInstantiate was sent): it goes with the
  // exec even when the exec was moved to the client since.
  bool serverHeld = false;
  // Nodes cudaGraphNodeSetEnabled turned off (by handle): a launch skips
  // them, which an exec replayed on the client does.
  std::set<uint64_t> disabled;
  unsigned long long flags = 0; // as instantiated (cudaGraphExecGetFlags)
  // Graph memory: the allocation nodes it holds (their addresses), those a
  // launch leaves allocated, and what it frees that another graph
  // allocated.
  std::vector<uint64_t> allocations, leavesLive, frees;
};

// CUDA's rule for giving an exec's node `current` the parameters of
// `next` (cudaGraphExecUpdate's, node by node; also the exec-node SetParams
// calls').
cudaGraphExecUpdateResult updateRule(const GraphNode &current,
                                     const GraphNode &next);

// What cudaGraphExecUpdate would say for replacing `current` by `next`, and
// which node indices changed when it may (same count and node types).
cudaGraphExecUpdateResult compareForUpdate(const NodeList &current,
                                           const NodeList &next,
                                           std::vector<uint32_t> *changed,
                                           size_t *errorIndex);

class GraphState {
public:
  // ---- capture ------------------------------------------------------------
  // `stream` is the wire stream ID (0 = legacy, never capturable).
  cudaError_t beginCapture(uint64_t stream, cudaStreamCaptureMode mode,
                           uint64_t graphId);
  // Ends the capture `stream` started; *graphId = 0 when it was invalidated.
  cudaError_t endCapture(uint64_t stream, uint64_t *graphId);
  cudaStreamCaptureStatus status(uint64_t stream) const;
  bool capturing(uint64_t stream) const { return member_.count(stream) != 0; }
  bool anyCapture() const { return !captures_.empty(); }
  // Capture sequence ID (cudaStreamGetCaptureInfo), 0 when not capturing.
  unsigned long long captureId(uint64_t stream) const;
  // Appends a node to the capture `stream` belongs to (which it must),
  // after the node captured before it. Fails with
  // cudaErrorStreamCaptureInvalidated after an invalidation.
  cudaError_t addNode(uint64_t stream, GraphNode node);
  // An illegal call invalidates the whole capture sequence, as in CUDA.
  void invalidate(uint64_t stream);
  void invalidateAll();

  // Events: a record in a capturing stream ties the event to the capture;
  // a capturing stream that waits on an event recorded outside it and a
  // stream that waits on a captured event (it joins the capture) are
  // handled here. Return true when the call was absorbed by a capture.
  bool eventRecorded(uint64_t event, uint64_t stream);
  cudaError_t streamWaitsEvent(uint64_t stream, uint64_t event, bool *absorbed);
  bool eventCaptured(uint64_t event) const {
    return capturedEvents_.count(event) != 0;
  }
  void eventDestroyed(uint64_t event) { capturedEvents_.erase(event); }

  // ---- graphs built node by node --------------------------------------------
  void createGraph(uint64_t id) { graphs_[id]; }
  // Adds `node` to graph `id` after `deps` (handles of nodes of that graph:
  // cudaErrorInvalidValue otherwise) and returns its handle in *handle.
  cudaError_t addGraphNode(uint64_t id, GraphNode node, const uint64_t *deps,
                           size_t count, uint64_t *handle);
  // Makes each to[i] depend on from[i] (all nodes of graph `id`).
  cudaError_t addDependencies(uint64_t id, const uint64_t *from,
                              const uint64_t *to, size_t count);
  // A copy of graph `id` as graph `cloneId`, with new node handles.
  bool cloneGraph(uint64_t id, uint64_t cloneId);
  // The graph node behind `handle`, and the graph it belongs to.
  GraphNode *node(uint64_t handle, uint64_t *graph = nullptr);
  // The node of graph `cloneId` that `original` was copied into (0: none).
  uint64_t nodeInClone(uint64_t original, uint64_t cloneId) const;

  // ---- graphs and executable graphs ----------------------------------------
  const Graph *graph(uint64_t id) const;
  bool destroyGraph(uint64_t id);
  Exec *exec(uint64_t id);
  void addExec(uint64_t id, Exec exec) { execs_[id] = std::move(exec); }
  bool destroyExec(uint64_t id) { return execs_.erase(id) != 0; }
  // Whether a graph or an exec still holds the allocation node of `addr`
  // (it may launch again, expecting that address).
  bool holdsAllocation(uint64_t addr) const;

  // ---- queries and edits (graph_edits.cpp) ---------------------------------
  Graph *mutableGraph(uint64_t id);
  // Graph `id` with every child graph node replaced by its graph's nodes
  // (recursively): what instantiation orders. Empty when there is none.
  Graph flattened(uint64_t id) const;
  // A child graph of its own for a node: a copy of graph `id` (false: none).
  bool cloneChild(uint64_t id, uint64_t *child);
  // Removes node `handle` and its edges (cudaGraphDestroyNode); a child
  // graph node's graph goes with it.
  bool removeNode(uint64_t handle);
  // The capture `stream` belongs to: its graph and the nodes the next node
  // captured will depend on.
  cudaError_t captureInfo(uint64_t stream, uint64_t *graph,
                          std::vector<uint64_t> *deps) const;
  // cudaStreamUpdateCaptureDependencies: nodes of the capture's graph the
  // next captured node depends on, instead of (`set`) or besides them.
  cudaError_t updateCaptureDependencies(uint64_t stream,
                                        const std::vector<uint64_t> &handles,
                                        bool set);
  // cudaStreamBeginCaptureToGraph: captures into the existing graph `graph`
  // after `deps` (its nodes).
  cudaError_t beginCaptureInto(uint64_t stream, cudaStreamCaptureMode mode,
                               uint64_t graph,
                               const std::vector<uint64_t> &deps);

private:
  struct Capture {
    uint64_t origin = 0; // the stream that began it (only it may end it)
    uint64_t graph = 0;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    bool invalidated = false;
    bool intoExisting = false;  // the program's graph: kept if invalidated
    std::set<uint64_t> streams; // origin + streams joined through events
    // Set: what the next captured node depends on (node indices), instead
    // of the node captured last.
    bool depsSet = false;
    std::vector<uint32_t> nextDeps;
  };
  // Indices of `handles` in graph `graph`; false when one is not its node.
  bool indicesIn(uint64_t graph, const std::vector<uint64_t> &handles,
                 std::vector<uint32_t> *out) const;
  void destroyChildren(const Graph &g);
  std::map<unsigned long long, Capture> captures_; // by capture sequence ID
  std::map<uint64_t, unsigned long long> member_;  // stream -> capture
  std::map<uint64_t, unsigned long long> capturedEvents_;
  uint64_t appendNode(uint64_t id, GraphNode node, std::vector<uint32_t> deps);
  struct NodePlace {
    uint64_t graph;
    uint32_t index;
  };
  std::map<uint64_t, Graph> graphs_;
  std::map<uint64_t, NodePlace> nodes_; // by handle
  std::map<uint64_t, Exec> execs_;
  unsigned long long nextCaptureId_ = 1;
  // Node handles count far from the Runtime's handles (0x100 up), so a node
  // passed where a graph or exec belongs is never found, and vice versa.
  uint64_t nextNodeHandle_ = 0x6e0000000;
  // Child graphs nodes own count from here, apart from the Runtime's.
  uint64_t nextChildGraph_ = 0x6c0000000;
};

} // namespace rc::rt

#endif
