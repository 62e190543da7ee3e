// What a graph says of itself (docs/graphs.md): a node's parameters as the
// node holds them, its edges both ways, and the whole graph as a DOT file.
// Graphs live on the client, so every answer is local.
#include "api/global.h"
#include "core/handle.h"
#include "manifests/kernel_index.h"
#include "manifests/startup_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using rc::rt::Graph;
using rc::rt::GraphNode;
using rc::rt::GraphState;
using rc::rt::handleId;
using rc::rt::HostStep;
using rc::rt::record;
using rc::rt::runtime;
using rc::rt::toHandle;

namespace {

// A copy of the node (the state changes under us once the lock is gone).
cudaError_t nodeCopy(cudaGraphNode_t node, GraphNode *out) {
  return runtime().withGraphs([&](GraphState &graphs) {
    const GraphNode *n = graphs.node(handleId(node));
    if (!n)
      return cudaErrorInvalidValue;
    *out = *n;
    return cudaSuccess;
  });
}

// The arguments a kernel node's parameters point into: owned here, per
// node, until the node is asked again (CUDA: while the node lives).
struct KernelArguments {
  std::vector<uint8_t> bytes;
  std::vector<void *> pointers;
};
std::mutex argumentsMu;
std::map<uint64_t, KernelArguments> &arguments() {
  static auto *kept = new std::map<uint64_t, KernelArguments>;
  return *kept;
}

// Fills the first *count of `out` and nulls the rest, as CUDA does;
// *count becomes how many were filled (or, with no array, how many exist).
template <class T>
cudaError_t fill(const std::vector<T> &found, T *out, size_t *count) {
  if (!count)
    return cudaErrorInvalidValue;
  if (!out) {
    *count = found.size();
    return cudaSuccess;
  }
  for (size_t i = 0; i < *count; ++i)
    out[i] = i < found.size() ? found[i] : T();
  *count = std::min(*count, found.size());
  return cudaSuccess;
}

// Edges carry no data here (every edge is a full dependency): edge data
// asked for reads as zeros, CUDA's default edge.
void zeroEdgeData(cudaGraphEdgeData *data, size_t count) {
  if (data)
    std::memset(data, 0, count * sizeof *data);
}

using Edge = std::pair<cudaGraphNode_t, cudaGraphNode_t>;

cudaError_t edgesOf(cudaGraph_t graph, std::vector<Edge> *edges) {
  return runtime().withGraphs([&](GraphState &graphs) {
    const Graph *g = graphs.graph(handleId(graph));
    if (!g)
      return cudaErrorInvalidValue;
    for (size_t i = 0; i < g->nodes.size(); ++i)
      for (uint32_t d : g->deps[i])
        edges->push_back({toHandle<cudaGraphNode_t>(g->handles[d]),
                          toHandle<cudaGraphNode_t>(g->handles[i])});
    return cudaSuccess;
  });
}

// The nodes `node` depends on, or (`dependents`) those that depend on it.
cudaError_t neighbours(cudaGraphNode_t node, bool dependents,
                       std::vector<cudaGraphNode_t> *out) {
  return runtime().withGraphs([&](GraphState &graphs) {
    uint64_t id = 0;
    if (!graphs.node(handleId(node), &id))
      return cudaErrorInvalidValue;
    const Graph *g = graphs.graph(id);
    auto at = std::find(g->handles.begin(), g->handles.end(), handleId(node));
    const uint32_t index = uint32_t(at - g->handles.begin());
    for (size_t i = 0; i < g->nodes.size(); ++i) {
      const std::vector<uint32_t> &d = g->deps[i];
      if (!dependents && i == index)
        for (uint32_t j : d)
          out->push_back(toHandle<cudaGraphNode_t>(g->handles[j]));
      if (dependents && std::find(d.begin(), d.end(), index) != d.end())
        out->push_back(toHandle<cudaGraphNode_t>(g->handles[i]));
    }
    return cudaSuccess;
  });
}

cudaError_t edges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                  size_t *numEdges) {
  if (!numEdges || (!from != !to))
    return cudaErrorInvalidValue;
  std::vector<Edge> found;
  if (cudaError_t err = edgesOf(graph, &found))
    return err;
  if (!from) {
    *numEdges = found.size();
    return cudaSuccess;
  }
  for (size_t i = 0; i < *numEdges; ++i) {
    from[i] = i < found.size() ? found[i].first : nullptr;
    to[i] = i < found.size() ? found[i].second : nullptr;
  }
  *numEdges = std::min(*numEdges, found.size());
  return cudaSuccess;
}

const char *typeName(cudaGraphNodeType t) {
  switch (t) {
  case cudaGraphNodeTypeKernel:
    return "kernel";
  case cudaGraphNodeTypeMemcpy:
    return "memcpy";
  case cudaGraphNodeTypeMemset:
    return "memset";
  case cudaGraphNodeTypeHost:
    return "host";
  case cudaGraphNodeTypeGraph:
    return "graph";
  case cudaGraphNodeTypeEventRecord:
    return "event record";
  case cudaGraphNodeTypeWaitEvent:
    return "event wait";
  case cudaGraphNodeTypeMemAlloc:
    return "mem alloc";
  case cudaGraphNodeTypeMemFree:
    return "mem free";
  default:
    return "empty";
  }
}

// One node's label: its kind and, verbosely, what it does.
std::string dotLabel(const GraphNode &n, bool verbose) {
  std::string label = typeName(n.kind());
  if (n.type == rc::wire::Command::Launch) {
    const rc::manifest::Kernel *k = nullptr;
    uint64_t module = 0;
    if (runtime().kernels().kernelRecord(n.kernelId, &k, &module) ==
        cudaSuccess)
      label += "\\n" + rc::rt::KernelIndex::describe(k);
  }
  if (!verbose)
    return label;
  char detail[160];
  if (n.type == rc::wire::Command::Launch)
    std::snprintf(detail, sizeof detail,
                  "\\ngrid (%u,%u,%u) block (%u,%u,%u) shared %u", n.grid[0],
                  n.grid[1], n.grid[2], n.block[0], n.block[1], n.block[2],
                  n.sharedMem);
  else if (n.kind() == cudaGraphNodeTypeMemcpy ||
           n.kind() == cudaGraphNodeTypeMemset)
    std::snprintf(detail, sizeof detail, "\\n%llu bytes",
                  (unsigned long long)n.size);
  else
    detail[0] = '\0';
  // Quotes and backslashes of a name would end the DOT string.
  for (char &c : label)
    c = c == '"' ? '\'' : c;
  return label + detail;
}

} // namespace

extern "C" {

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                         cudaKernelNodeParams *params) {
  GraphNode n;
  if (!params)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = nodeCopy(node, &n))
    return record(err);
  if (n.type != rc::wire::Command::Launch)
    return record(cudaErrorInvalidValue);
  const rc::manifest::Kernel *k = nullptr;
  uint64_t module = 0;
  if (cudaError_t err =
          runtime().kernels().kernelRecord(n.kernelId, &k, &module))
    return record(err);
  std::lock_guard<std::mutex> lock(argumentsMu);
  KernelArguments &kept = arguments()[handleId(node)];
  kept.bytes = n.args;
  kept.pointers.clear();
  if (k->params())
    for (const rc::manifest::Param *p : *k->params())
      kept.pointers.push_back(kept.bytes.data() + p->offset());
  const void *stub = k->name() ? rc::rt::StartupRegistry::instance().stubFor(
                                     module, k->name()->str())
                               : nullptr;
  params->func = const_cast<void *>(stub);
  params->gridDim = dim3(n.grid[0], n.grid[1], n.grid[2]);
  params->blockDim = dim3(n.block[0], n.block[1], n.block[2]);
  params->sharedMemBytes = n.sharedMem;
  params->kernelParams = kept.pointers.data();
  params->extra = nullptr;
  return cudaSuccess;
}

// A copy node as one contiguous copy of its bytes (what it holds).
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                         cudaMemcpy3DParms *params) {
  GraphNode n;
  if (!params)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = nodeCopy(node, &n))
    return record(err);
  if (n.kind() != cudaGraphNodeTypeMemcpy)
    return record(cudaErrorInvalidValue);
  void *dst = reinterpret_cast<void *>(uintptr_t(n.dst));
  void *src = reinterpret_cast<void *>(uintptr_t(n.src));
  cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;
  if (n.host == HostStep::CopyToDevice)
    src = n.hostPtr, kind = cudaMemcpyHostToDevice;
  if (n.host == HostStep::CopyToHost)
    dst = n.hostPtr, kind = cudaMemcpyDeviceToHost;
  std::memset(params, 0, sizeof *params);
  params->srcPtr = cudaPitchedPtr{src, n.size, n.size, 1};
  params->dstPtr = cudaPitchedPtr{dst, n.size, n.size, 1};
  params->extent = cudaExtent{n.size, 1, 1};
  params->kind = kind;
  return cudaSuccess;
}

// A memset node sets bytes (graph_build_runtime.cpp): one row of them.
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
                                         cudaMemsetParams *params) {
  GraphNode n;
  if (!params)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = nodeCopy(node, &n))
    return record(err);
  if (n.kind() != cudaGraphNodeTypeMemset)
    return record(cudaErrorInvalidValue);
  params->dst = reinterpret_cast<void *>(uintptr_t(n.dst));
  params->pitch = 0;
  params->value = n.value;
  params->elementSize = 1;
  params->width = n.size;
  params->height = 1;
  return cudaSuccess;
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                       cudaHostNodeParams *params) {
  GraphNode n;
  if (!params)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = nodeCopy(node, &n))
    return record(err);
  if (n.kind() != cudaGraphNodeTypeHost)
    return record(cudaErrorInvalidValue);
  params->fn = n.fn;
  params->userData = n.userData;
  return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
                              cudaGraphNode_t *to, size_t *numEdges) {
  return record(edges(graph, from, to, numEdges));
}

cudaError_t cudaGraphGetEdges_v2(cudaGraph_t graph, cudaGraphNode_t *from,
                                 cudaGraphNode_t *to,
                                 cudaGraphEdgeData *edgeData,
                                 size_t *numEdges) {
  cudaError_t err = edges(graph, from, to, numEdges);
  if (err == cudaSuccess && from)
    zeroEdgeData(edgeData, *numEdges);
  return record(err);
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                         cudaGraphNode_t *deps,
                                         size_t *numDeps) {
  std::vector<cudaGraphNode_t> found;
  if (cudaError_t err = neighbours(node, false, &found))
    return record(err);
  return record(fill(found, deps, numDeps));
}

cudaError_t cudaGraphNodeGetDependencies_v2(cudaGraphNode_t node,
                                            cudaGraphNode_t *deps,
                                            cudaGraphEdgeData *edgeData,
                                            size_t *numDeps) {
  std::vector<cudaGraphNode_t> found;
  if (cudaError_t err = neighbours(node, false, &found))
    return record(err);
  cudaError_t err = fill(found, deps, numDeps);
  if (err == cudaSuccess && deps)
    zeroEdgeData(edgeData, *numDeps);
  return record(err);
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                           cudaGraphNode_t *nodes,
                                           size_t *numNodes) {
  std::vector<cudaGraphNode_t> found;
  if (cudaError_t err = neighbours(node, true, &found))
    return record(err);
  return record(fill(found, nodes, numNodes));
}

cudaError_t cudaGraphNodeGetDependentNodes_v2(cudaGraphNode_t node,
                                              cudaGraphNode_t *nodes,
                                              cudaGraphEdgeData *edgeData,
                                              size_t *numNodes) {
  std::vector<cudaGraphNode_t> found;
  if (cudaError_t err = neighbours(node, true, &found))
    return record(err);
  cudaError_t err = fill(found, nodes, numNodes);
  if (err == cudaSuccess && nodes)
    zeroEdgeData(edgeData, *numNodes);
  return record(err);
}

// The graph as Graphviz reads it: a node per graph node, labelled with its
// kind (and kernel), an edge per dependency; verbose flags add what each
// node does.
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path,
                                   unsigned int flags) {
  if (!path)
    return record(cudaErrorInvalidValue);
  Graph g;
  cudaError_t err = runtime().withGraphs([&](GraphState &graphs) {
    const Graph *found = graphs.graph(handleId(graph));
    if (!found)
      return cudaErrorInvalidValue;
    g = *found;
    return cudaSuccess;
  });
  if (err)
    return record(err);
  std::FILE *f = std::fopen(path, "w");
  if (!f)
    return record(cudaErrorOperatingSystem);
  std::fprintf(f, "digraph dot {\n");
  for (size_t i = 0; i < g.nodes.size(); ++i)
    std::fprintf(f, "  node%zu [label=\"%s\"];\n", i,
                 dotLabel(g.nodes[i], flags != 0).c_str());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (uint32_t d : g.deps[i])
      std::fprintf(f, "  node%u -> node%zu;\n", d, i);
  std::fprintf(f, "}\n");
  bool written = std::fclose(f) == 0;
  return record(written ? cudaSuccess : cudaErrorOperatingSystem);
}

} // extern "C"
