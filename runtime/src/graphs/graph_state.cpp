#include "graphs/graph_state.h"

#include <cstring>

namespace rc::rt {

bool GraphNode::operator==(const GraphNode &o) const {
  return type == o.type && kernelId == o.kernelId &&
         std::memcmp(grid, o.grid, sizeof grid) == 0 &&
         std::memcmp(block, o.block, sizeof block) == 0 &&
         sharedMem == o.sharedMem && cooperative == o.cooperative &&
         programmaticSerialization == o.programmaticSerialization &&
         args == o.args && dst == o.dst && src == o.src && size == o.size &&
         value == o.value && libraryBytes == o.libraryBytes;
}

flatbuffers::Offset<wire::CommandEntry>
GraphNode::serialize(flatbuffers::FlatBufferBuilder &fbb) const {
  flatbuffers::Offset<void> cmd;
  switch (type) {
  case wire::Command::Launch: {
    auto g = fbb.CreateVector(grid, 3);
    auto b = fbb.CreateVector(block, 3);
    auto a = fbb.CreateVector(args);
    cmd = wire::CreateLaunch(fbb, kernelId, g, b, sharedMem, 0, a, cooperative,
                             programmaticSerialization)
              .Union();
    break;
  }
  case wire::Command::Memset:
    cmd = wire::CreateMemset(fbb, dst, value, size, 0).Union();
    break;
  case wire::Command::MemcpyD2D:
    cmd = wire::CreateMemcpyD2D(fbb, dst, src, size, 0).Union();
    break;
  default:
    if (library)
      cmd = library(fbb, 0);
    break;
  }
  return wire::CreateCommandEntry(fbb, type, cmd);
}

// CUDA 12's rules for the nodes we create (cudaGraphExecUpdate docs): the
// topology (here: node count, since captured graphs are chains) and every
// node's type must stay; kernel nodes may change function, configuration
// and arguments, but not whether they are cooperative; 1D device memsets
// and device-to-device copies may change addresses, sizes and values.
cudaGraphExecUpdateResult compareForUpdate(const NodeList &current,
                                           const NodeList &next,
                                           std::vector<uint32_t> *changed,
                                           size_t *errorIndex) {
  changed->clear();
  *errorIndex = 0;
  if (current.size() != next.size())
    return cudaGraphExecUpdateErrorTopologyChanged;
  for (size_t i = 0; i < next.size(); ++i) {
    *errorIndex = i;
    if (current[i].type != next[i].type)
      return cudaGraphExecUpdateErrorNodeTypeChanged;
    if (current[i].cooperative != next[i].cooperative)
      return cudaGraphExecUpdateErrorUnsupportedFunctionChange;
  }
  *errorIndex = 0;
  for (size_t i = 0; i < next.size(); ++i)
    if (current[i] != next[i])
      changed->push_back(uint32_t(i));
  return cudaGraphExecUpdateSuccess;
}

cudaError_t GraphState::beginCapture(uint64_t stream,
                                     cudaStreamCaptureMode mode,
                                     uint64_t graphId) {
  if (stream == 0)
    return cudaErrorStreamCaptureUnsupported; // legacy stream: never
  if (mode != cudaStreamCaptureModeGlobal &&
      mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed)
    return cudaErrorInvalidValue;
  if (capturing(stream))
    return cudaErrorIllegalState;
  unsigned long long id = nextCaptureId_++;
  Capture &c = captures_[id];
  c.origin = stream;
  c.graph = graphId;
  c.mode = mode;
  c.streams.insert(stream);
  member_[stream] = id;
  graphs_[graphId]; // an empty graph, filled as work is captured
  return cudaSuccess;
}

cudaError_t GraphState::endCapture(uint64_t stream, uint64_t *graphId) {
  *graphId = 0;
  auto m = member_.find(stream);
  if (m == member_.end())
    return cudaErrorIllegalState;
  const unsigned long long id = m->second;
  Capture &c = captures_[id];
  if (c.origin != stream)
    return cudaErrorStreamCaptureUnmatched;
  // Every stream that joined stops capturing with the origin.
  for (uint64_t s : c.streams)
    member_.erase(s);
  for (auto e = capturedEvents_.begin(); e != capturedEvents_.end();)
    e = e->second == id ? capturedEvents_.erase(e) : std::next(e);
  bool invalidated = c.invalidated;
  uint64_t graph = c.graph;
  captures_.erase(id);
  if (invalidated) {
    graphs_.erase(graph);
    return cudaErrorStreamCaptureInvalidated;
  }
  *graphId = graph;
  return cudaSuccess;
}

cudaStreamCaptureStatus GraphState::status(uint64_t stream) const {
  auto m = member_.find(stream);
  if (m == member_.end())
    return cudaStreamCaptureStatusNone;
  return captures_.at(m->second).invalidated
             ? cudaStreamCaptureStatusInvalidated
             : cudaStreamCaptureStatusActive;
}

unsigned long long GraphState::captureId(uint64_t stream) const {
  auto m = member_.find(stream);
  return m == member_.end() ? 0 : m->second;
}

cudaError_t GraphState::addNode(uint64_t stream, GraphNode node) {
  auto m = member_.find(stream);
  if (m == member_.end())
    return cudaErrorIllegalState;
  Capture &c = captures_[m->second];
  if (c.invalidated)
    return cudaErrorStreamCaptureInvalidated;
  graphs_[c.graph].push_back(std::move(node));
  return cudaSuccess;
}

void GraphState::invalidate(uint64_t stream) {
  auto m = member_.find(stream);
  if (m != member_.end())
    captures_[m->second].invalidated = true;
}

void GraphState::invalidateAll() {
  for (auto &c : captures_)
    c.second.invalidated = true;
}

bool GraphState::eventRecorded(uint64_t event, uint64_t stream) {
  auto m = member_.find(stream);
  if (m == member_.end()) {
    capturedEvents_.erase(event); // re-recorded outside: an ordinary event
    return false;
  }
  capturedEvents_[event] = m->second;
  return true;
}

cudaError_t GraphState::streamWaitsEvent(uint64_t stream, uint64_t event,
                                         bool *absorbed) {
  *absorbed = false;
  auto e = capturedEvents_.find(event);
  auto m = member_.find(stream);
  if (e == capturedEvents_.end()) {
    if (m == member_.end())
      return cudaSuccess; // ordinary wait, outside any capture
    // A capture may only depend on work inside it (CUDA: isolation).
    captures_[m->second].invalidated = true;
    return cudaErrorStreamCaptureIsolation;
  }
  if (m != member_.end() && m->second != e->second) {
    captures_[m->second].invalidated = true;
    return cudaErrorStreamCaptureMerge; // two captures would merge
  }
  // Fork: the waiting stream joins the capture. Its later work is ordered
  // after everything captured so far, which the chain already guarantees.
  member_[stream] = e->second;
  captures_[e->second].streams.insert(stream);
  *absorbed = true;
  return cudaSuccess;
}

const NodeList *GraphState::graph(uint64_t id) const {
  auto it = graphs_.find(id);
  return it == graphs_.end() ? nullptr : &it->second;
}

NodeList *GraphState::exec(uint64_t id) {
  auto it = execs_.find(id);
  return it == execs_.end() ? nullptr : &it->second;
}

} // namespace rc::rt
