// Graph nodes and edits beyond the basic kinds (docs/graphs.md): child
// graphs, event record and wait nodes, copies to and from symbols, edges
// with CUDA 12.3's edge data, nodes taken out, nodes of an exec turned off,
// kernel node attributes, and what instantiation and upload say. Graphs
// live on the client; each call is answered here, and an exec on the
// server hears of a change as any exec update.
#include "api/global.h"
#include "core/enum_number.h"
#include "core/handle.h"
#include "core/unsupported.h"
#include "graphs/graph_order.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using rc::rt::Exec;
using rc::rt::Graph;
using rc::rt::GraphNode;
using rc::rt::GraphState;
using rc::rt::handleId;
using rc::rt::HostStep;
using rc::rt::MemoryStep;
using rc::rt::record;
using rc::rt::runtime;
using rc::rt::toHandle;

namespace {

// Every edge here is a full dependency: data that asks for another kind
// (programmatic dependencies, ports) is refused by name.
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

cudaError_t addNode(cudaGraphNode_t *node, cudaGraph_t graph,
                    const cudaGraphNode_t *deps, size_t count, GraphNode n) {
  return runtime().graphs().graphAddNode(node, graph, deps, count,
                                         std::move(n));
}

cudaError_t eventNode(cudaEvent_t event, HostStep step, GraphNode *out) {
  if (!event)
    return cudaErrorInvalidValue;
  out->host = step;
  out->event = event;
  return cudaSuccess;
}

// A copy to or from [offset, offset + count) of a __device__ or
// __constant__ variable: an ordinary copy node at its address.
cudaError_t symbolCopyNode(void *linear, const void *symbol, size_t count,
                           size_t offset, cudaMemcpyKind kind, bool toSymbol,
                           const char *call, GraphNode *out) {
  void *at = nullptr;
  size_t size = 0;
  if (cudaError_t err = runtime().symbolAddress(&at, symbol))
    return err;
  if (cudaError_t err = runtime().symbolSize(&size, symbol))
    return err;
  if (offset > size || count > size - offset)
    return cudaErrorInvalidValue;
  int k = rc::rt::enumNumber(kind);
  bool direction =
      k == cudaMemcpyDefault || k == cudaMemcpyDeviceToDevice ||
      k == (toSymbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (!direction)
    return cudaErrorInvalidMemcpyDirection;
  char *device = static_cast<char *>(at) + offset;
  return toSymbol ? runtime().graphs().memcpyNode(device, linear, count, kind,
                                                  call, out)
                  : runtime().graphs().memcpyNode(linear, device, count, kind,
                                                  call, out);
}

// A copy of an exec node the exec knows by `node`, and its index.
cudaError_t execNode(cudaGraphExec_t exec, cudaGraphNode_t node,
                     GraphNode *out) {
  return runtime().withGraphs([&](GraphState &graphs) {
    Exec *e = graphs.exec(handleId(exec));
    if (!e)
      return cudaErrorInvalidValue;
    auto at = std::find(e->handles.begin(), e->handles.end(), handleId(node));
    if (at == e->handles.end())
      return cudaErrorInvalidValue;
    *out = e->nodes[size_t(at - e->handles.begin())];
    return cudaSuccess;
  });
}

cudaError_t setNodeEvent(cudaGraphNode_t node, cudaEvent_t event,
                         HostStep step) {
  if (!event)
    return cudaErrorInvalidValue;
  return runtime().withGraphs([&](GraphState &graphs) {
    GraphNode *n = graphs.node(handleId(node));
    if (!n || n->host != step)
      return cudaErrorInvalidValue;
    n->event = event;
    return cudaSuccess;
  });
}

cudaError_t nodeEvent(cudaGraphNode_t node, cudaEvent_t *event, HostStep step) {
  if (!event)
    return cudaErrorInvalidValue;
  return runtime().withGraphs([&](GraphState &graphs) {
    GraphNode *n = graphs.node(handleId(node));
    if (!n || n->host != step)
      return cudaErrorInvalidValue;
    *event = n->event;
    return cudaSuccess;
  });
}

cudaError_t setExecNodeEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                             cudaEvent_t event, HostStep step) {
  GraphNode n;
  if (!event)
    return cudaErrorInvalidValue;
  if (cudaError_t err = execNode(exec, node, &n))
    return err;
  if (n.host != step)
    return cudaErrorInvalidValue;
  n.event = event;
  return runtime().graphs().graphExecNodeSet(exec, node, std::move(n));
}

cudaError_t removeEdges(cudaGraph_t graph, const cudaGraphNode_t *from,
                        const cudaGraphNode_t *to, size_t count) {
  if (count && (!from || !to))
    return cudaErrorInvalidValue;
  return runtime().withGraphs([&](GraphState &graphs) {
    Graph *g = graphs.mutableGraph(handleId(graph));
    if (!g)
      return cudaErrorInvalidValue;
    auto index = [&](cudaGraphNode_t n, uint32_t *i) {
      auto at = std::find(g->handles.begin(), g->handles.end(), handleId(n));
      *i = uint32_t(at - g->handles.begin());
      return at != g->handles.end();
    };
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (size_t k = 0; k < count; ++k) {
      uint32_t f, t;
      if (!index(from[k], &f) || !index(to[k], &t))
        return cudaErrorInvalidValue;
      const std::vector<uint32_t> &d = g->deps[t];
      if (std::find(d.begin(), d.end(), f) == d.end())
        return cudaErrorInvalidValue; // no such edge
      edges.push_back({f, t});
    }
    // All or nothing: removed once every one has been found.
    for (auto [f, t] : edges) {
      std::vector<uint32_t> &d = g->deps[t];
      d.erase(std::remove(d.begin(), d.end(), f), d.end());
    }
    return cudaSuccess;
  });
}

// The kernel node attributes the wire's Launch carries, and what the
// others read as while unset (CUDA's defaults).
cudaError_t kernelAttribute(GraphNode &n, int attr,
                            cudaLaunchAttributeValue *value, bool set) {
  if (n.type != rc::wire::Command::Launch || !value)
    return cudaErrorInvalidValue;
  switch (attr) {
  case cudaLaunchAttributeCooperative:
    if (set)
      n.cooperative = value->cooperative != 0;
    else
      value->cooperative = n.cooperative;
    return cudaSuccess;
  case cudaLaunchAttributeProgrammaticStreamSerialization:
    if (set)
      n.programmaticSerialization =
          value->programmaticStreamSerializationAllowed != 0;
    else
      value->programmaticStreamSerializationAllowed =
          n.programmaticSerialization;
    return cudaSuccess;
  case cudaLaunchAttributeAccessPolicyWindow:
  case cudaLaunchAttributePriority:
  case cudaLaunchAttributeClusterDimension:
  case cudaLaunchAttributeClusterSchedulingPolicyPreference:
  case cudaLaunchAttributeMemSyncDomain:
  case cudaLaunchAttributeMemSyncDomainMap: {
    static const cudaLaunchAttributeValue unset = {};
    if (!set) {
      *value = unset;
      return cudaSuccess;
    }
    if (std::memcmp(value, &unset, sizeof unset) == 0)
      return cudaSuccess;
    return rc::rt::reportUnsupported(
        "cudaGraphKernelNodeSetAttribute (a kernel node's access policy "
        "window, priority, cluster or memory sync domain)");
  }
  default:
    return cudaErrorInvalidValue;
  }
}

} // namespace

extern "C" {

cudaError_t cudaGraphAddDependencies_v2(cudaGraph_t graph,
                                        const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *edgeData,
                                        size_t count) {
  if (cudaError_t err =
          plainEdges(edgeData, count, "cudaGraphAddDependencies_v2"))
    return record(err);
  return record(
      runtime().graphs().graphAddDependencies(graph, from, to, count));
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph,
                                        const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to,
                                        size_t count) {
  return record(removeEdges(graph, from, to, count));
}

cudaError_t cudaGraphRemoveDependencies_v2(cudaGraph_t graph,
                                           const cudaGraphNode_t *from,
                                           const cudaGraphNode_t *to,
                                           const cudaGraphEdgeData *edgeData,
                                           size_t count) {
  if (cudaError_t err =
          plainEdges(edgeData, count, "cudaGraphRemoveDependencies_v2"))
    return record(err);
  return record(removeEdges(graph, from, to, count));
}

cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t *node, cudaGraph_t graph,
                                const cudaGraphNode_t *deps,
                                const cudaGraphEdgeData *edgeData, size_t count,
                                cudaGraphNodeParams *params) {
  if (cudaError_t err = plainEdges(edgeData, count, "cudaGraphAddNode_v2"))
    return record(err);
  return cudaGraphAddNode(node, graph, deps, count, params);
}

// An allocation node's memory was made with the node and is freed with its
// graph; taking the node out alone is refused by name.
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  return record(runtime().withGraphs([&](GraphState &graphs) {
    const GraphNode *n = graphs.node(handleId(node));
    if (!n)
      return cudaErrorInvalidValue;
    if (n->memory == MemoryStep::Alloc)
      return rc::rt::reportUnsupported(
          "cudaGraphDestroyNode of a memory allocation node");
    graphs.removeNode(handleId(node));
    return cudaSuccess;
  }));
}

// ---- child graphs
// -------------------------------------------------------------

// The node owns a copy of `child`, as in CUDA; instantiation puts its
// nodes in the node's place. Memory nodes may not be in a child graph.
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                       const cudaGraphNode_t *deps,
                                       size_t count, cudaGraph_t child) {
  GraphNode n;
  cudaError_t err = runtime().withGraphs([&](GraphState &graphs) {
    const Graph *c = graphs.graph(handleId(child));
    if (!c || handleId(child) == handleId(graph))
      return cudaErrorInvalidValue;
    for (const GraphNode &inner : c->nodes)
      if (inner.memory != MemoryStep::None)
        return cudaErrorNotSupported;
    return graphs.cloneChild(handleId(child), &n.childGraph)
               ? cudaSuccess
               : cudaErrorInvalidValue;
  });
  if (err)
    return record(err);
  uint64_t copy = n.childGraph;
  err = addNode(node, graph, deps, count, std::move(n));
  if (err)
    runtime().withGraphs(
        [&](GraphState &graphs) { return graphs.destroyGraph(copy); });
  return record(err);
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node,
                                            cudaGraph_t *graph) {
  if (!graph)
    return record(cudaErrorInvalidValue);
  return record(runtime().withGraphs([&](GraphState &graphs) {
    const GraphNode *n = graphs.node(handleId(node));
    if (!n || !n->childGraph)
      return cudaErrorInvalidValue;
    *graph = toHandle<cudaGraph_t>(n->childGraph);
    return cudaSuccess;
  }));
}

// The exec's nodes that came from the child graph node take the new
// graph's parameters, node by node in the exec's order; its topology (and
// every node's kind) must be the same, as CUDA requires.
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec,
                                                 cudaGraphNode_t node,
                                                 cudaGraph_t child) {
  std::vector<uint64_t> handles;
  Exec next;
  cudaError_t err = runtime().withGraphs([&](GraphState &graphs) {
    Exec *e = graphs.exec(handleId(exec));
    if (!e || !graphs.graph(handleId(child)))
      return cudaErrorInvalidValue;
    for (size_t i = 0; i < e->owners.size(); ++i)
      if (e->owners[i] == handleId(node))
        handles.push_back(e->handles[i]);
    Graph flat = graphs.flattened(handleId(child));
    if (handles.empty() || !rc::rt::orderForExec(flat, &next) ||
        next.nodes.size() != handles.size())
      return cudaErrorInvalidValue;
    for (size_t i = 0; i < handles.size(); ++i) {
      auto at = std::find(e->handles.begin(), e->handles.end(), handles[i]);
      if (rc::rt::updateRule(e->nodes[size_t(at - e->handles.begin())],
                             next.nodes[i]) != cudaGraphExecUpdateSuccess)
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
  });
  for (size_t i = 0; !err && i < handles.size(); ++i)
    err = runtime().graphs().graphExecNodeSet(
        exec, toHandle<cudaGraphNode_t>(handles[i]), next.nodes[i]);
  return record(err);
}

// ---- event record and wait nodes
// ------------------------------------------------

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node,
                                        cudaGraph_t graph,
                                        const cudaGraphNode_t *deps,
                                        size_t count, cudaEvent_t event) {
  GraphNode n;
  if (cudaError_t err = eventNode(event, HostStep::EventRecord, &n))
    return record(err);
  return record(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                      const cudaGraphNode_t *deps, size_t count,
                                      cudaEvent_t event) {
  GraphNode n;
  if (cudaError_t err = eventNode(event, HostStep::EventWait, &n))
    return record(err);
  return record(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node,
                                             cudaEvent_t *event) {
  return record(nodeEvent(node, event, HostStep::EventRecord));
}
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node,
                                             cudaEvent_t event) {
  return record(setNodeEvent(node, event, HostStep::EventRecord));
}
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node,
                                           cudaEvent_t *event) {
  return record(nodeEvent(node, event, HostStep::EventWait));
}
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node,
                                           cudaEvent_t event) {
  return record(setNodeEvent(node, event, HostStep::EventWait));
}
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec,
                                                 cudaGraphNode_t node,
                                                 cudaEvent_t event) {
  return record(setExecNodeEvent(exec, node, event, HostStep::EventRecord));
}
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec,
                                               cudaGraphNode_t node,
                                               cudaEvent_t event) {
  return record(setExecNodeEvent(exec, node, event, HostStep::EventWait));
}

// ---- copies to and from symbols
// ---------------------------------------------------

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *node,
                                           cudaGraph_t graph,
                                           const cudaGraphNode_t *deps,
                                           size_t count, const void *symbol,
                                           const void *src, size_t bytes,
                                           size_t offset, cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err =
          symbolCopyNode(const_cast<void *>(src), symbol, bytes, offset, kind,
                         true, "cudaGraphAddMemcpyNodeToSymbol", &n))
    return record(err);
  return record(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t
cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *node, cudaGraph_t graph,
                                 const cudaGraphNode_t *deps, size_t count,
                                 void *dst, const void *symbol, size_t bytes,
                                 size_t offset, cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err = symbolCopyNode(dst, symbol, bytes, offset, kind, false,
                                       "cudaGraphAddMemcpyNodeFromSymbol", &n))
    return record(err);
  return record(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node,
                                                 const void *symbol,
                                                 const void *src, size_t bytes,
                                                 size_t offset,
                                                 cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err =
          symbolCopyNode(const_cast<void *>(src), symbol, bytes, offset, kind,
                         true, "cudaGraphMemcpyNodeSetParamsToSymbol", &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node,
                                                   void *dst,
                                                   const void *symbol,
                                                   size_t bytes, size_t offset,
                                                   cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err =
          symbolCopyNode(dst, symbol, bytes, offset, kind, false,
                         "cudaGraphMemcpyNodeSetParamsFromSymbol", &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(
    cudaGraphExec_t exec, cudaGraphNode_t node, const void *symbol,
    const void *src, size_t bytes, size_t offset, cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err =
          symbolCopyNode(const_cast<void *>(src), symbol, bytes, offset, kind,
                         true, "cudaGraphExecMemcpyNodeSetParamsToSymbol", &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(
    cudaGraphExec_t exec, cudaGraphNode_t node, void *dst, const void *symbol,
    size_t bytes, size_t offset, cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err =
          symbolCopyNode(dst, symbol, bytes, offset, kind, false,
                         "cudaGraphExecMemcpyNodeSetParamsFromSymbol", &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

// ---- nodes of an exec turned off and on
// ---------------------------------------------

// A disabled node does nothing when the exec runs. An exec the server held
// is replayed by the client from then on, which skips the node; the
// server's copy goes when the exec does.
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                    unsigned int isEnabled) {
  return record(runtime().withGraphs([&](GraphState &graphs) {
    Exec *e = graphs.exec(handleId(exec));
    if (!e)
      return cudaErrorInvalidValue;
    auto at = std::find(e->handles.begin(), e->handles.end(), handleId(node));
    if (at == e->handles.end())
      return cudaErrorInvalidValue;
    cudaGraphNodeType kind = e->nodes[size_t(at - e->handles.begin())].kind();
    if (kind != cudaGraphNodeTypeKernel && kind != cudaGraphNodeTypeMemcpy &&
        kind != cudaGraphNodeTypeMemset)
      return cudaErrorInvalidValue;
    if (isEnabled) {
      e->disabled.erase(handleId(node));
    } else {
      e->disabled.insert(handleId(node));
      e->onClient = true;
    }
    return cudaSuccess;
  }));
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                    unsigned int *isEnabled) {
  if (!isEnabled)
    return record(cudaErrorInvalidValue);
  return record(runtime().withGraphs([&](GraphState &graphs) {
    Exec *e = graphs.exec(handleId(exec));
    if (!e || std::find(e->handles.begin(), e->handles.end(), handleId(node)) ==
                  e->handles.end())
      return cudaErrorInvalidValue;
    *isEnabled = e->disabled.count(handleId(node)) ? 0 : 1;
    return cudaSuccess;
  }));
}

// ---- kernel node attributes
// ------------------------------------------------------

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node,
                                            cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue *value) {
  return record(runtime().withGraphs([&](GraphState &graphs) {
    GraphNode *n = graphs.node(handleId(node));
    return n ? kernelAttribute(*n, rc::rt::enumNumber(attr), value, false)
             : cudaErrorInvalidValue;
  }));
}

cudaError_t
cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                const cudaKernelNodeAttrValue *value) {
  if (!value)
    return record(cudaErrorInvalidValue);
  cudaKernelNodeAttrValue copy = *value;
  return record(runtime().withGraphs([&](GraphState &graphs) {
    GraphNode *n = graphs.node(handleId(node));
    return n ? kernelAttribute(*n, rc::rt::enumNumber(attr), &copy, true)
             : cudaErrorInvalidValue;
  }));
}

cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst,
                                              cudaGraphNode_t src) {
  return record(runtime().withGraphs([&](GraphState &graphs) {
    GraphNode *from = graphs.node(handleId(src));
    GraphNode *to = graphs.node(handleId(dst));
    if (!from || !to || from->type != rc::wire::Command::Launch ||
        to->type != rc::wire::Command::Launch)
      return cudaErrorInvalidValue;
    to->cooperative = from->cooperative;
    to->programmaticSerialization = from->programmaticSerialization;
    return cudaSuccess;
  }));
}

// ---- instantiation and upload
// ------------------------------------------------------

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *exec,
                                           cudaGraph_t graph,
                                           cudaGraphInstantiateParams *params) {
  if (!params)
    return record(cudaErrorInvalidValue);
  cudaError_t err = cudaGraphInstantiateWithFlags(exec, graph, params->flags);
  params->errNode_out = nullptr;
  switch (err) {
  case cudaSuccess:
    params->result_out = cudaGraphInstantiateSuccess;
    break;
  case cudaErrorNotSupported:
    params->result_out = cudaGraphInstantiateNodeOperationNotSupported;
    break;
  default:
    params->result_out = cudaGraphInstantiateError;
  }
  if (err == cudaSuccess && (params->flags & cudaGraphInstantiateFlagUpload))
    err = cudaGraphUpload(*exec, params->uploadStream);
  return record(err);
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec,
                                  unsigned long long *flags) {
  if (!flags)
    return record(cudaErrorInvalidValue);
  return record(runtime().withGraphs([&](GraphState &graphs) {
    Exec *e = graphs.exec(handleId(exec));
    if (!e)
      return cudaErrorInvalidValue;
    *flags = e->flags;
    return cudaSuccess;
  }));
}

// An exec is on the server from instantiation on (or replayed by the
// client, which has it): there is nothing more to upload, and the stream
// only has to be one.
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  uint64_t wire = 0;
  if (cudaError_t err = runtime().streams().wireStream(stream, false, &wire))
    return record(err);
  return record(runtime().withGraphs([&](GraphState &graphs) {
    return graphs.exec(handleId(exec)) ? cudaSuccess : cudaErrorInvalidValue;
  }));
}

} // extern "C"
