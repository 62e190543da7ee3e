// Graph state beyond building and capturing in order (graph_state.h,
// "queries and edits"): child graphs in place of their nodes, nodes taken
// out again, and what a capture's next node depends on.
#include "graphs/graph_state.h"

#include <algorithm>

namespace rc::rt {

Graph *GraphState::mutableGraph(uint64_t id) {
  auto it = graphs_.find(id);
  return it == graphs_.end() ? nullptr : &it->second;
}

// Each node of the graph becomes itself, or the nodes of its child graph
// (their own edges kept): the child's roots then wait for what the child
// node waited for, and whatever waited for the child node waits for all of
// its nodes. An empty child graph stays an empty node, which orders.
Graph GraphState::flattened(uint64_t id) const {
  Graph out;
  const Graph *g = graph(id);
  if (!g)
    return out;
  const size_t n = g->nodes.size();
  std::vector<std::vector<uint32_t>> roots(n), all(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t base = uint32_t(out.nodes.size());
    Graph sub;
    if (g->nodes[i].childGraph)
      sub = flattened(g->nodes[i].childGraph);
    if (sub.nodes.empty()) {
      out.nodes.push_back(g->nodes[i].childGraph ? GraphNode() : g->nodes[i]);
      out.deps.emplace_back();
      out.handles.push_back(g->handles[i]);
      out.owners.push_back(g->handles[i]);
      roots[i] = all[i] = {base};
      continue;
    }
    for (size_t j = 0; j < sub.nodes.size(); ++j) {
      std::vector<uint32_t> deps = sub.deps[j];
      for (uint32_t &d : deps)
        d += base;
      if (deps.empty())
        roots[i].push_back(base + uint32_t(j));
      all[i].push_back(base + uint32_t(j));
      out.nodes.push_back(std::move(sub.nodes[j]));
      out.deps.push_back(std::move(deps));
      out.handles.push_back(sub.handles[j]);
      out.owners.push_back(g->handles[i]);
    }
  }
  for (size_t i = 0; i < n; ++i)
    for (uint32_t d : g->deps[i])
      for (uint32_t r : roots[i])
        out.deps[r].insert(out.deps[r].end(), all[d].begin(), all[d].end());
  return out;
}

bool GraphState::cloneChild(uint64_t id, uint64_t *child) {
  uint64_t c = nextChildGraph_++;
  if (!cloneGraph(id, c))
    return false;
  *child = c;
  return true;
}

void GraphState::destroyChildren(const Graph &g) {
  for (const GraphNode &n : g.nodes)
    if (n.childGraph)
      destroyGraph(n.childGraph);
}

bool GraphState::removeNode(uint64_t handle) {
  auto place = nodes_.find(handle);
  if (place == nodes_.end())
    return false;
  const uint32_t index = place->second.index;
  Graph &g = graphs_[place->second.graph];
  nodes_.erase(place);
  uint64_t child = g.nodes[index].childGraph;
  g.nodes.erase(g.nodes.begin() + index);
  g.deps.erase(g.deps.begin() + index);
  g.handles.erase(g.handles.begin() + index);
  for (std::vector<uint32_t> &deps : g.deps) {
    deps.erase(std::remove(deps.begin(), deps.end(), index), deps.end());
    for (uint32_t &d : deps)
      d -= d > index ? 1 : 0;
  }
  for (size_t i = index; i < g.handles.size(); ++i)
    nodes_[g.handles[i]].index = uint32_t(i);
  if (child)
    destroyGraph(child);
  return true;
}

bool GraphState::indicesIn(uint64_t graph, const std::vector<uint64_t> &handles,
                           std::vector<uint32_t> *out) const {
  out->clear();
  for (uint64_t h : handles) {
    auto n = nodes_.find(h);
    if (n == nodes_.end() || n->second.graph != graph)
      return false;
    if (std::find(out->begin(), out->end(), n->second.index) == out->end())
      out->push_back(n->second.index);
  }
  return true;
}

cudaError_t GraphState::captureInfo(uint64_t stream, uint64_t *graph,
                                    std::vector<uint64_t> *deps) const {
  auto m = member_.find(stream);
  if (m == member_.end())
    return cudaErrorIllegalState;
  const Capture &c = captures_.at(m->second);
  const Graph &g = graphs_.at(c.graph);
  *graph = c.graph;
  deps->clear();
  if (c.depsSet)
    for (uint32_t i : c.nextDeps)
      deps->push_back(g.handles[i]);
  else if (!g.nodes.empty())
    deps->push_back(g.handles.back());
  return cudaSuccess;
}

cudaError_t GraphState::updateCaptureDependencies(
    uint64_t stream, const std::vector<uint64_t> &handles, bool set) {
  auto m = member_.find(stream);
  if (m == member_.end())
    return cudaErrorIllegalState;
  Capture &c = captures_[m->second];
  if (c.invalidated)
    return cudaErrorStreamCaptureInvalidated;
  std::vector<uint32_t> given;
  if (!indicesIn(c.graph, handles, &given))
    return cudaErrorInvalidValue;
  if (!set) {
    const Graph &g = graphs_[c.graph];
    std::vector<uint32_t> current =
        c.depsSet         ? c.nextDeps
        : g.nodes.empty() ? std::vector<uint32_t>()
                          : std::vector<uint32_t>{uint32_t(g.nodes.size() - 1)};
    for (uint32_t i : given)
      if (std::find(current.begin(), current.end(), i) == current.end())
        current.push_back(i);
    given = std::move(current);
  }
  c.depsSet = true;
  c.nextDeps = std::move(given);
  return cudaSuccess;
}

cudaError_t GraphState::beginCaptureInto(uint64_t stream,
                                         cudaStreamCaptureMode mode,
                                         uint64_t graph,
                                         const std::vector<uint64_t> &deps) {
  std::vector<uint32_t> after;
  if (!graphs_.count(graph) || !indicesIn(graph, deps, &after))
    return cudaErrorInvalidValue;
  if (cudaError_t err = beginCapture(stream, mode, graph))
    return err;
  Capture &c = captures_[member_[stream]];
  c.intoExisting = true;
  c.depsSet = true;
  c.nextDeps = std::move(after);
  return cudaSuccess;
}

} // namespace rc::rt
