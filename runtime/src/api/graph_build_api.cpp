// Exported calls that build graphs node by node (docs/graphs.md). Each
// node is made and checked first, then added; CUDA's legacy (v1) parameter
// structs and 12.x's cudaGraphNodeParams map onto the same node kinds.
#include "api/global.h"
#include "core/handle.h"
#include "core/unsupported.h"
#include "graphs/user_objects.h"

using rc::rt::GraphNode;
using rc::rt::HostStep;
using rc::rt::record;
using rc::rt::runtime;

namespace {

cudaError_t kernelNode(const cudaKernelNodeParams *p, const char *call,
                       GraphNode *out) {
  if (!p)
    return cudaErrorInvalidValue;
  uint64_t id;
  if (cudaError_t err = runtime().kernels().stubToId(p->func, &id))
    return err;
  return runtime().graphs().kernelNode(id, *p, call, out);
}

cudaError_t hostNode(const cudaHostNodeParams *p, GraphNode *out) {
  if (!p || !p->fn)
    return cudaErrorInvalidValue;
  out->host = HostStep::Function;
  out->fn = p->fn;
  out->userData = p->userData;
  return cudaSuccess;
}

cudaError_t memcpyNode(const cudaMemcpy3DParms *p, const char *call,
                       GraphNode *out) {
  if (!p)
    return cudaErrorInvalidValue;
  return runtime().graphs().memcpy3DNode(*p, call, out);
}

cudaError_t memsetNode(const cudaMemsetParams *p, const char *call,
                       GraphNode *out) {
  if (!p)
    return cudaErrorInvalidValue;
  return runtime().graphs().memsetNode(*p, call, out);
}

// CUDA 12's generic parameters, for the node kinds served.
cudaError_t genericNode(const cudaGraphNodeParams *p, const char *call,
                        GraphNode *out) {
  if (!p)
    return cudaErrorInvalidValue;
  switch (p->type) {
  case cudaGraphNodeTypeKernel: {
    const cudaKernelNodeParamsV2 &k = p->kernel;
    cudaKernelNodeParams v1 = {k.func,           k.gridDim,      k.blockDim,
                               k.sharedMemBytes, k.kernelParams, k.extra};
    return kernelNode(&v1, call, out);
  }
  case cudaGraphNodeTypeMemcpy:
    return memcpyNode(&p->memcpy.copyParams, call, out);
  case cudaGraphNodeTypeMemset: {
    const cudaMemsetParamsV2 &m = p->memset;
    cudaMemsetParams v1 = {m.dst,         m.pitch, m.value,
                           m.elementSize, m.width, m.height};
    return memsetNode(&v1, call, out);
  }
  case cudaGraphNodeTypeHost: {
    cudaHostNodeParams v1 = {p->host.fn, p->host.userData};
    return hostNode(&v1, out);
  }
  case cudaGraphNodeTypeEmpty:
    *out = GraphNode();
    return cudaSuccess;
  case cudaGraphNodeTypeEventRecord:
  case cudaGraphNodeTypeWaitEvent:
    if (!p->eventRecord.event) // eventWait has the same layout
      return cudaErrorInvalidValue;
    out->host = p->type == cudaGraphNodeTypeEventRecord ? HostStep::EventRecord
                                                        : HostStep::EventWait;
    out->event = p->eventRecord.event;
    return cudaSuccess;
  default:
    return rc::rt::reportUnsupported(
        (std::string(call) + " for this node type (a child graph's new "
                             "parameters, semaphore, memory or conditional "
                             "node)")
            .c_str());
  }
}

// Adds the node `made` produced, unless making it failed.
cudaError_t add(cudaError_t made, cudaGraphNode_t *node, cudaGraph_t graph,
                const cudaGraphNode_t *deps, size_t count, GraphNode n) {
  if (made != cudaSuccess)
    return made;
  return runtime().graphs().graphAddNode(node, graph, deps, count,
                                         std::move(n));
}

// A memory allocation node's memory exists from now on: it goes again if
// the node cannot be added.
cudaError_t addAllocation(cudaGraphNode_t *node, cudaGraph_t graph,
                          const cudaGraphNode_t *deps, size_t count,
                          cudaMemAllocNodeParams *params, const char *call) {
  GraphNode n;
  if (cudaError_t err = runtime().graphs().graphMemAllocNode(params, call, &n))
    return record(err);
  cudaError_t err = add(cudaSuccess, node, graph, deps, count, std::move(n));
  if (err != cudaSuccess) {
    runtime().free(params->dptr);
    params->dptr = nullptr;
  }
  return record(err);
}

} // namespace

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags) {
  return record(runtime().graphs().graphCreate(graph, flags));
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                   const cudaGraphNode_t *deps, size_t count,
                                   const cudaKernelNodeParams *params) {
  GraphNode n;
  cudaError_t made = kernelNode(params, "cudaGraphAddKernelNode", &n);
  return record(add(made, node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                   const cudaGraphNode_t *deps, size_t count,
                                   const cudaMemcpy3DParms *params) {
  GraphNode n;
  cudaError_t made = memcpyNode(params, "cudaGraphAddMemcpyNode", &n);
  return record(add(made, node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph,
                                     const cudaGraphNode_t *deps, size_t count,
                                     void *dst, const void *src, size_t bytes,
                                     cudaMemcpyKind kind) {
  GraphNode n;
  cudaError_t made = runtime().graphs().memcpyNode(
      dst, src, bytes, kind, "cudaGraphAddMemcpyNode1D", &n);
  return record(add(made, node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                   const cudaGraphNode_t *deps, size_t count,
                                   const cudaMemsetParams *params) {
  GraphNode n;
  cudaError_t made = memsetNode(params, "cudaGraphAddMemsetNode", &n);
  return record(add(made, node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                 const cudaGraphNode_t *deps, size_t count,
                                 const cudaHostNodeParams *params) {
  GraphNode n;
  cudaError_t made = hostNode(params, &n);
  return record(add(made, node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                  const cudaGraphNode_t *deps, size_t count) {
  return record(add(cudaSuccess, node, graph, deps, count, GraphNode()));
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                     const cudaGraphNode_t *deps, size_t count,
                                     cudaMemAllocNodeParams *params) {
  return addAllocation(node, graph, deps, count, params,
                       "cudaGraphAddMemAllocNode");
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                    const cudaGraphNode_t *deps, size_t count,
                                    void *dptr) {
  GraphNode n;
  cudaError_t made = runtime().graphs().graphMemFreeNode(dptr, &n);
  return record(add(made, node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                           cudaMemAllocNodeParams *params) {
  if (!params)
    return record(cudaErrorInvalidValue);
  return record(
      runtime().graphs().graphMemoryNodeParams(node, params, nullptr));
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node,
                                          void *dptr_out) {
  return record(runtime().graphs().graphMemoryNodeParams(
      node, nullptr, static_cast<void **>(dptr_out)));
}

// Graph memory is allocated per node and freed with it: nothing is cached
// for a trim to return.
cudaError_t cudaDeviceGraphMemTrim(int device) {
  uint64_t ignored = 0;
  return record(runtime().graphs().graphMemAttribute(
      device, cudaGraphMemAttrUsedMemCurrent, &ignored, false));
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                           cudaGraphMemAttributeType attr,
                                           void *value) {
  return record(
      runtime().graphs().graphMemAttribute(device, attr, value, false));
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device,
                                           cudaGraphMemAttributeType attr,
                                           void *value) {
  return record(
      runtime().graphs().graphMemAttribute(device, attr, value, true));
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t graph,
                             const cudaGraphNode_t *deps, size_t count,
                             cudaGraphNodeParams *params) {
  if (params && params->type == cudaGraphNodeTypeMemAlloc) {
    cudaMemAllocNodeParamsV2 &v2 = params->alloc;
    cudaMemAllocNodeParams v1 = {v2.poolProps, v2.accessDescs,
                                 v2.accessDescCount, v2.bytesize, nullptr};
    cudaError_t err =
        addAllocation(node, graph, deps, count, &v1, "cudaGraphAddNode");
    v2.dptr = v1.dptr;
    return err;
  }
  if (params && params->type == cudaGraphNodeTypeGraph)
    return cudaGraphAddChildGraphNode(node, graph, deps, count,
                                      params->graph.graph);
  GraphNode n;
  cudaError_t made =
      params && params->type == cudaGraphNodeTypeMemFree
          ? runtime().graphs().graphMemFreeNode(params->free.dptr, &n)
          : genericNode(params, "cudaGraphAddNode", &n);
  return record(add(made, node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph,
                                     const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, size_t count) {
  return record(
      runtime().graphs().graphAddDependencies(graph, from, to, count));
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                              size_t *count) {
  return record(runtime().graphs().graphGetNodes(graph, nodes, count, false));
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                  size_t *count) {
  return record(runtime().graphs().graphGetNodes(graph, nodes, count, true));
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node,
                                 cudaGraphNodeType *type) {
  return record(runtime().graphs().graphNodeGetType(node, type));
}

// A clone holds references to its original's user objects too.
cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t graph) {
  cudaError_t err = runtime().graphs().graphClone(clone, graph);
  if (err == cudaSuccess)
    rc::rt::UserObjects::instance().copyReferences(rc::rt::handleId(graph),
                                                   rc::rt::handleId(*clone));
  return record(err);
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *node,
                                     cudaGraphNode_t original,
                                     cudaGraph_t clone) {
  return record(runtime().graphs().graphNodeFindInClone(node, original, clone));
}

// ---- new parameters for a graph's node --------------------------------------

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const cudaKernelNodeParams *params) {
  GraphNode n;
  if (cudaError_t err = kernelNode(params, "cudaGraphKernelNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                         const cudaMemcpy3DParms *params) {
  GraphNode n;
  if (cudaError_t err = memcpyNode(params, "cudaGraphMemcpyNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
                                           const void *src, size_t bytes,
                                           cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err = runtime().graphs().memcpyNode(
          dst, src, bytes, kind, "cudaGraphMemcpyNodeSetParams1D", &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                         const cudaMemsetParams *params) {
  GraphNode n;
  if (cudaError_t err = memsetNode(params, "cudaGraphMemsetNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                       const cudaHostNodeParams *params) {
  GraphNode n;
  if (cudaError_t err = hostNode(params, &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node,
                                   cudaGraphNodeParams *params) {
  GraphNode n;
  if (cudaError_t err = genericNode(params, "cudaGraphNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphNodeSet(node, std::move(n)));
}

// ---- new parameters for an exec's node --------------------------------------

cudaError_t
cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                 const cudaKernelNodeParams *params) {
  GraphNode n;
  if (cudaError_t err =
          kernelNode(params, "cudaGraphExecKernelNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec,
                                             cudaGraphNode_t node,
                                             const cudaMemcpy3DParms *params) {
  GraphNode n;
  if (cudaError_t err =
          memcpyNode(params, "cudaGraphExecMemcpyNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec,
                                               cudaGraphNode_t node, void *dst,
                                               const void *src, size_t bytes,
                                               cudaMemcpyKind kind) {
  GraphNode n;
  if (cudaError_t err = runtime().graphs().memcpyNode(
          dst, src, bytes, kind, "cudaGraphExecMemcpyNodeSetParams1D", &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec,
                                             cudaGraphNode_t node,
                                             const cudaMemsetParams *params) {
  GraphNode n;
  if (cudaError_t err =
          memsetNode(params, "cudaGraphExecMemsetNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec,
                                           cudaGraphNode_t node,
                                           const cudaHostNodeParams *params) {
  GraphNode n;
  if (cudaError_t err = hostNode(params, &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec,
                                       cudaGraphNode_t node,
                                       cudaGraphNodeParams *params) {
  GraphNode n;
  if (cudaError_t err = genericNode(params, "cudaGraphExecNodeSetParams", &n))
    return record(err);
  return record(runtime().graphs().graphExecNodeSet(exec, node, std::move(n)));
}

} // extern "C"
