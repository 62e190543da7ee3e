#include "graphs/graph_state.h"

#include <algorithm>
#include <cstring>

namespace rc::rt {

GraphNode GraphNode::copy(void *dst, const void *src, size_t count,
                          cudaMemcpyKind kind) {
  GraphNode node;
  node.size = count;
  if (kind == cudaMemcpyHostToDevice) {
    node.host = HostStep::CopyToDevice;
    node.dst = uint64_t(uintptr_t(dst));
    node.hostPtr = const_cast<void *>(src);
  } else if (kind == cudaMemcpyDeviceToHost) {
    node.host = HostStep::CopyToHost;
    node.src = uint64_t(uintptr_t(src));
    node.hostPtr = dst;
  } else {
    node.type = wire::Command::MemcpyD2D;
    node.dst = uint64_t(uintptr_t(dst));
    node.src = uint64_t(uintptr_t(src));
  }
  return node;
}

GraphNode GraphNode::memset(void *dst, uint8_t value, size_t count) {
  GraphNode node;
  node.type = wire::Command::Memset;
  node.dst = uint64_t(uintptr_t(dst));
  node.value = value;
  node.size = count;
  return node;
}

GraphNode GraphNode::libraryCommand(wire::Command type, LibraryCommand build) {
  GraphNode node;
  node.type = type;
  node.library = std::move(build);
  flatbuffers::FlatBufferBuilder fbb(256);
  fbb.Finish(wire::CreateCommandEntry(fbb, type, node.library(fbb, 0)));
  node.libraryBytes.assign(fbb.GetBufferPointer(),
                           fbb.GetBufferPointer() + fbb.GetSize());
  return node;
}

cudaGraphNodeType GraphNode::kind() const {
  if (childGraph)
    return cudaGraphNodeTypeGraph;
  if (memory == MemoryStep::Alloc)
    return cudaGraphNodeTypeMemAlloc;
  if (memory == MemoryStep::Free)
    return cudaGraphNodeTypeMemFree;
  switch (host) {
  case HostStep::Function:
    return cudaGraphNodeTypeHost;
  case HostStep::CopyToDevice:
  case HostStep::CopyToHost:
    return cudaGraphNodeTypeMemcpy;
  case HostStep::EventRecord:
    return cudaGraphNodeTypeEventRecord;
  case HostStep::EventWait:
    return cudaGraphNodeTypeWaitEvent;
  case HostStep::None:
    break;
  }
  switch (type) {
  case wire::Command::NONE:
    return cudaGraphNodeTypeEmpty;
  case wire::Command::Memset:
    return cudaGraphNodeTypeMemset;
  case wire::Command::MemcpyD2D:
    return cudaGraphNodeTypeMemcpy;
  default: // launches, and library calls (their kernels, in CUDA)
    return cudaGraphNodeTypeKernel;
  }
}

bool GraphNode::operator==(const GraphNode &o) const {
  return type == o.type && host == o.host && kernelId == o.kernelId &&
         std::memcmp(grid, o.grid, sizeof grid) == 0 &&
         std::memcmp(block, o.block, sizeof block) == 0 &&
         sharedMem == o.sharedMem && cooperative == o.cooperative &&
         programmaticSerialization == o.programmaticSerialization &&
         args == o.args && dst == o.dst && src == o.src && size == o.size &&
         value == o.value && libraryBytes == o.libraryBytes && fn == o.fn &&
         userData == o.userData && hostPtr == o.hostPtr && event == o.event &&
         memory == o.memory && childGraph == o.childGraph;
}

flatbuffers::Offset<void>
GraphNode::command(flatbuffers::FlatBufferBuilder &fbb, uint64_t stream) const {
  flatbuffers::Offset<void> cmd;
  switch (type) {
  case wire::Command::Launch: {
    auto g = fbb.CreateVector(grid, 3);
    auto b = fbb.CreateVector(block, 3);
    auto a = fbb.CreateVector(args);
    cmd = wire::CreateLaunch(fbb, kernelId, g, b, sharedMem, stream, a,
                             cooperative, programmaticSerialization)
              .Union();
    break;
  }
  case wire::Command::Memset:
    cmd = wire::CreateMemset(fbb, dst, value, size, stream).Union();
    break;
  case wire::Command::MemcpyD2D:
    cmd = wire::CreateMemcpyD2D(fbb, dst, src, size, stream).Union();
    break;
  default:
    if (library)
      cmd = library(fbb, stream);
    break;
  }
  return cmd;
}

flatbuffers::Offset<wire::CommandEntry>
GraphNode::serialize(flatbuffers::FlatBufferBuilder &fbb) const {
  return wire::CreateCommandEntry(fbb, type, command(fbb, 0));
}

// CUDA 12's rules for the nodes we create (cudaGraphExecUpdate docs): the
// topology (here: node count of the exec's order) and every node's type
// must stay, and a copy may not change between device and host memory;
// kernel nodes may change function, configuration and arguments, but not
// whether they are cooperative; 1D memsets, copies and host nodes may
// change addresses, sizes, values and functions.
cudaGraphExecUpdateResult updateRule(const GraphNode &current,
                                     const GraphNode &next) {
  if (current.kind() != next.kind())
    return cudaGraphExecUpdateErrorNodeTypeChanged;
  if (current.host != next.host) // a copy's memory type changed
    return cudaGraphExecUpdateErrorParametersChanged;
  if (current.type != next.type) // e.g. a kernel and a GEMM
    return cudaGraphExecUpdateErrorNodeTypeChanged;
  if (current.cooperative != next.cooperative)
    return cudaGraphExecUpdateErrorUnsupportedFunctionChange;
  return cudaGraphExecUpdateSuccess;
}

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
    cudaGraphExecUpdateResult r = updateRule(current[i], next[i]);
    if (r != cudaGraphExecUpdateSuccess)
      return r;
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
  bool invalidated = c.invalidated, keep = c.intoExisting;
  uint64_t graph = c.graph;
  captures_.erase(id);
  if (invalidated) {
    if (!keep)
      destroyGraph(graph);
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
  Graph &g = graphs_[c.graph];
  std::vector<uint32_t> after;
  if (c.depsSet)
    after = std::move(c.nextDeps);
  else if (!g.nodes.empty())
    after.push_back(uint32_t(g.nodes.size() - 1));
  c.depsSet = false;
  c.nextDeps.clear();
  appendNode(c.graph, std::move(node), std::move(after));
  return cudaSuccess;
}

uint64_t GraphState::appendNode(uint64_t id, GraphNode node,
                                std::vector<uint32_t> deps) {
  Graph &g = graphs_[id];
  uint64_t handle = nextNodeHandle_++;
  nodes_[handle] = {id, uint32_t(g.nodes.size())};
  g.nodes.push_back(std::move(node));
  g.deps.push_back(std::move(deps));
  g.handles.push_back(handle);
  return handle;
}

cudaError_t GraphState::addGraphNode(uint64_t id, GraphNode node,
                                     const uint64_t *deps, size_t count,
                                     uint64_t *handle) {
  if (!graphs_.count(id) || (count && !deps))
    return cudaErrorInvalidValue;
  std::set<uint32_t> after;
  for (size_t i = 0; i < count; ++i) {
    auto n = nodes_.find(deps[i]);
    if (n == nodes_.end() || n->second.graph != id)
      return cudaErrorInvalidValue;
    after.insert(n->second.index);
  }
  *handle = appendNode(id, std::move(node), {after.begin(), after.end()});
  return cudaSuccess;
}

cudaError_t GraphState::addDependencies(uint64_t id, const uint64_t *from,
                                        const uint64_t *to, size_t count) {
  auto g = graphs_.find(id);
  if (g == graphs_.end() || (count && (!from || !to)))
    return cudaErrorInvalidValue;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (size_t i = 0; i < count; ++i) {
    auto f = nodes_.find(from[i]), t = nodes_.find(to[i]);
    if (f == nodes_.end() || t == nodes_.end() || f->second.graph != id ||
        t->second.graph != id || f->second.index == t->second.index)
      return cudaErrorInvalidValue;
    edges.push_back({f->second.index, t->second.index});
  }
  // All or nothing: the edges are added once every one has been checked.
  for (auto [f, t] : edges) {
    std::vector<uint32_t> &d = g->second.deps[t];
    if (std::find(d.begin(), d.end(), f) == d.end())
      d.push_back(f);
  }
  return cudaSuccess;
}

bool GraphState::cloneGraph(uint64_t id, uint64_t cloneId) {
  auto g = graphs_.find(id);
  if (g == graphs_.end())
    return false;
  Graph copy = g->second; // before graphs_ may grow
  graphs_[cloneId].clonedFrom = id;
  for (size_t i = 0; i < copy.nodes.size(); ++i) {
    // A clone's child graph nodes own copies of their graphs.
    if (copy.nodes[i].childGraph &&
        !cloneChild(copy.nodes[i].childGraph, &copy.nodes[i].childGraph))
      return false;
    appendNode(cloneId, std::move(copy.nodes[i]), std::move(copy.deps[i]));
  }
  return true;
}

GraphNode *GraphState::node(uint64_t handle, uint64_t *graph) {
  auto n = nodes_.find(handle);
  if (n == nodes_.end())
    return nullptr;
  if (graph)
    *graph = n->second.graph;
  return &graphs_[n->second.graph].nodes[n->second.index];
}

uint64_t GraphState::nodeInClone(uint64_t original, uint64_t cloneId) const {
  auto n = nodes_.find(original);
  auto c = graphs_.find(cloneId);
  if (n == nodes_.end() || c == graphs_.end() ||
      c->second.clonedFrom != n->second.graph ||
      n->second.index >= c->second.handles.size())
    return 0;
  return c->second.handles[n->second.index];
}

bool GraphState::holdsAllocation(uint64_t addr) const {
  for (const auto &g : graphs_)
    for (const GraphNode &n : g.second.nodes)
      if (n.memory == MemoryStep::Alloc && n.dst == addr)
        return true;
  for (const auto &e : execs_)
    for (uint64_t a : e.second.allocations)
      if (a == addr)
        return true;
  return false;
}

bool GraphState::destroyGraph(uint64_t id) {
  auto g = graphs_.find(id);
  if (g == graphs_.end())
    return false;
  for (uint64_t h : g->second.handles)
    nodes_.erase(h);
  Graph gone = std::move(g->second);
  graphs_.erase(g);
  destroyChildren(gone);
  return true;
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

const Graph *GraphState::graph(uint64_t id) const {
  auto it = graphs_.find(id);
  return it == graphs_.end() ? nullptr : &it->second;
}

Exec *GraphState::exec(uint64_t id) {
  auto it = execs_.find(id);
  return it == execs_.end() ? nullptr : &it->second;
}

} // namespace rc::rt
