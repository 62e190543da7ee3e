// Client-side CUDA graphs: stream capture, graphs and executable graphs as
// plain node lists (docs/graphs.md). Nothing here talks to the server; the
// Runtime (graph_runtime.cpp) decides what goes on the wire.
//
// While a stream captures, the async work appended for it becomes a node of
// the capture's graph instead of a batch command. Captured graphs are linear:
// nodes keep capture order, each after the previous one (work joined from
// other streams through events is ordered by when it was issued), which
// respects every dependency the application expressed.
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

// One graph node: a Launch, Memset or MemcpyD2D with the fields it carries
// on the wire (the stream is the graph's, so it is not part of the node),
// or a library command (CublasGemm) kept as its serializer.
struct GraphNode {
  wire::Command type = wire::Command::NONE;
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

  bool operator==(const GraphNode &o) const;
  bool operator!=(const GraphNode &o) const { return !(*this == o); }
  // The node as a batch-style command (stream 0) built in `fbb`.
  flatbuffers::Offset<wire::CommandEntry>
  serialize(flatbuffers::FlatBufferBuilder &fbb) const;
};

using NodeList = std::vector<GraphNode>;

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
  // Appends a node to the capture `stream` belongs to (which it must).
  // Fails with cudaErrorStreamCaptureInvalidated after an invalidation.
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

  // ---- graphs and executable graphs ----------------------------------------
  const NodeList *graph(uint64_t id) const;
  bool destroyGraph(uint64_t id) { return graphs_.erase(id) != 0; }
  NodeList *exec(uint64_t id);
  void addExec(uint64_t id, NodeList nodes) { execs_[id] = std::move(nodes); }
  bool destroyExec(uint64_t id) { return execs_.erase(id) != 0; }

private:
  struct Capture {
    uint64_t origin = 0; // the stream that began it (only it may end it)
    uint64_t graph = 0;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    bool invalidated = false;
    std::set<uint64_t> streams; // origin + streams joined through events
  };
  std::map<unsigned long long, Capture> captures_; // by capture sequence ID
  std::map<uint64_t, unsigned long long> member_;  // stream -> capture
  std::map<uint64_t, unsigned long long> capturedEvents_;
  std::map<uint64_t, NodeList> graphs_;
  std::map<uint64_t, NodeList> execs_;
  unsigned long long nextCaptureId_ = 1;
};

} // namespace rc::rt

#endif
