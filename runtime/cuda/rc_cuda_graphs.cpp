// librc_cuda's graph calls whose parameters differ from the runtime's:
// kernel nodes name a CUfunction (a build's kernel, by its stub: module
// kernels are not in graphs yet, docs/driver-api.md), copy nodes a
// CUDA_MEMCPY3D, memset nodes a context, and the generic node parameters
// of CUDA 12 any of them. The rest of the driver's graph calls are
// aliases of the runtime's (runtime/coverage/aliases.txt).
#include "cu_context.h"
#include "cu_copies.h"
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>
#include <string>

extern "C" {
int __rc_kernel_stub(const void *f);
int __rc_report_unsupported(const char *call, const char *library);
}

using rc::cu::fromRuntime;
using rc::cu::ptr;

namespace {

CUresult refuse(const std::string &what) {
  __rc_report_unsupported(what.c_str(), "driver library");
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult kernelToRuntime(const CUDA_KERNEL_NODE_PARAMS *p, const char *call,
                         cudaKernelNodeParams *out) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  const void *f = p->func ? static_cast<const void *>(p->func)
                          : static_cast<const void *>(p->kern);
  if (!f)
    return CUDA_ERROR_INVALID_VALUE;
  if (!__rc_kernel_stub(f))
    return refuse(std::string(call) +
                  " with a kernel of a module loaded at run time");
  out->func = const_cast<void *>(f);
  out->gridDim = dim3(p->gridDimX, p->gridDimY, p->gridDimZ);
  out->blockDim = dim3(p->blockDimX, p->blockDimY, p->blockDimZ);
  out->sharedMemBytes = p->sharedMemBytes;
  out->kernelParams = p->kernelParams;
  out->extra = p->extra;
  return CUDA_SUCCESS;
}

// A copy node's parameters back as the driver's: one contiguous copy.
void copyToDriver(const cudaMemcpy3DParms &q, CUDA_MEMCPY3D *p) {
  std::memset(p, 0, sizeof *p);
  bool fromDevice =
      q.kind == cudaMemcpyDeviceToHost || q.kind == cudaMemcpyDeviceToDevice;
  bool toDevice =
      q.kind == cudaMemcpyHostToDevice || q.kind == cudaMemcpyDeviceToDevice;
  p->srcMemoryType = fromDevice ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  p->dstMemoryType = toDevice ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  if (fromDevice)
    p->srcDevice = CUdeviceptr(uintptr_t(q.srcPtr.ptr));
  else
    p->srcHost = q.srcPtr.ptr;
  if (toDevice)
    p->dstDevice = CUdeviceptr(uintptr_t(q.dstPtr.ptr));
  else
    p->dstHost = q.dstPtr.ptr;
  p->srcPitch = p->dstPitch = q.extent.width;
  p->srcHeight = p->dstHeight = 1;
  p->WidthInBytes = q.extent.width;
  p->Height = q.extent.height;
  p->Depth = q.extent.depth;
}

CUresult copyToRuntime(const CUDA_MEMCPY3D *p, cudaMemcpy3DParms *q) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  return rc::cu::toRuntime3D(*p, q);
}

const cudaMemsetParams *memsetParams(const CUDA_MEMSET_NODE_PARAMS *p) {
  return reinterpret_cast<const cudaMemsetParams *>(p); // cu_alias_types.h
}

// The node type as the number it holds: a program may pass any.
int typeOf(const CUgraphNodeParams &p) {
  int type;
  std::memcpy(&type, &p.type, sizeof type);
  return type;
}

} // namespace

extern "C" {

// ---- kernel nodes
// -------------------------------------------------------------

CUresult cuGraphAddKernelNode_v2(CUgraphNode *node, CUgraph graph,
                                 const CUgraphNode *deps, size_t count,
                                 const CUDA_KERNEL_NODE_PARAMS *params) {
  cudaKernelNodeParams k;
  if (CUresult r = kernelToRuntime(params, "cuGraphAddKernelNode", &k))
    return r;
  return fromRuntime(cudaGraphAddKernelNode(node, graph, deps, count, &k));
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode node,
                                       const CUDA_KERNEL_NODE_PARAMS *params) {
  cudaKernelNodeParams k;
  if (CUresult r = kernelToRuntime(params, "cuGraphKernelNodeSetParams", &k))
    return r;
  return fromRuntime(cudaGraphKernelNodeSetParams(node, &k));
}

CUresult
cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node,
                                  const CUDA_KERNEL_NODE_PARAMS *params) {
  cudaKernelNodeParams k;
  if (CUresult r =
          kernelToRuntime(params, "cuGraphExecKernelNodeSetParams", &k))
    return r;
  return fromRuntime(cudaGraphExecKernelNodeSetParams(exec, node, &k));
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode node,
                                       CUDA_KERNEL_NODE_PARAMS *params) {
  cudaKernelNodeParams k;
  if (!params)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaGraphKernelNodeGetParams(node, &k))
    return fromRuntime(e);
  std::memset(params, 0, sizeof *params);
  params->func = static_cast<CUfunction>(k.func);
  params->gridDimX = k.gridDim.x, params->gridDimY = k.gridDim.y;
  params->gridDimZ = k.gridDim.z;
  params->blockDimX = k.blockDim.x, params->blockDimY = k.blockDim.y;
  params->blockDimZ = k.blockDim.z;
  params->sharedMemBytes = k.sharedMemBytes;
  params->kernelParams = k.kernelParams;
  int device = 0;
  cudaGetDevice(&device);
  params->ctx = rc::cu::contextOf(device);
  return CUDA_SUCCESS;
}

// ---- copy and memset nodes (the context is the current one's device)
// ----------

CUresult cuGraphAddMemcpyNode(CUgraphNode *node, CUgraph graph,
                              const CUgraphNode *deps, size_t count,
                              const CUDA_MEMCPY3D *params, CUcontext) {
  cudaMemcpy3DParms q;
  if (CUresult r = copyToRuntime(params, &q))
    return r;
  return fromRuntime(cudaGraphAddMemcpyNode(node, graph, deps, count, &q));
}

CUresult cuGraphMemcpyNodeSetParams(CUgraphNode node,
                                    const CUDA_MEMCPY3D *params) {
  cudaMemcpy3DParms q;
  if (CUresult r = copyToRuntime(params, &q))
    return r;
  return fromRuntime(cudaGraphMemcpyNodeSetParams(node, &q));
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                        const CUDA_MEMCPY3D *params,
                                        CUcontext) {
  cudaMemcpy3DParms q;
  if (CUresult r = copyToRuntime(params, &q))
    return r;
  return fromRuntime(cudaGraphExecMemcpyNodeSetParams(exec, node, &q));
}

CUresult cuGraphMemcpyNodeGetParams(CUgraphNode node, CUDA_MEMCPY3D *params) {
  cudaMemcpy3DParms q;
  if (!params)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaGraphMemcpyNodeGetParams(node, &q))
    return fromRuntime(e);
  copyToDriver(q, params);
  return CUDA_SUCCESS;
}

CUresult cuGraphAddMemsetNode(CUgraphNode *node, CUgraph graph,
                              const CUgraphNode *deps, size_t count,
                              const CUDA_MEMSET_NODE_PARAMS *params,
                              CUcontext) {
  if (!params)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(
      cudaGraphAddMemsetNode(node, graph, deps, count, memsetParams(params)));
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                        const CUDA_MEMSET_NODE_PARAMS *params,
                                        CUcontext) {
  if (!params)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(
      cudaGraphExecMemsetNodeSetParams(exec, node, memsetParams(params)));
}

// ---- CUDA 12's generic node parameters
// ------------------------------------------

CUresult cuGraphAddNode(CUgraphNode *node, CUgraph graph,
                        const CUgraphNode *deps, size_t count,
                        CUgraphNodeParams *p) {
  static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v3) ==
                sizeof(CUDA_KERNEL_NODE_PARAMS));
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  switch (typeOf(*p)) {
  case CU_GRAPH_NODE_TYPE_KERNEL:
    return cuGraphAddKernelNode_v2(
        node, graph, deps, count,
        reinterpret_cast<const CUDA_KERNEL_NODE_PARAMS *>(&p->kernel));
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return cuGraphAddMemcpyNode(node, graph, deps, count, &p->memcpy.copyParams,
                                p->memcpy.copyCtx);
  case CU_GRAPH_NODE_TYPE_MEMSET:
    return cuGraphAddMemsetNode(
        node, graph, deps, count,
        reinterpret_cast<const CUDA_MEMSET_NODE_PARAMS *>(&p->memset),
        p->memset.ctx);
  case CU_GRAPH_NODE_TYPE_HOST:
    return fromRuntime(cudaGraphAddHostNode(
        node, graph, deps, count,
        reinterpret_cast<const cudaHostNodeParams *>(&p->host)));
  case CU_GRAPH_NODE_TYPE_GRAPH:
    return fromRuntime(
        cudaGraphAddChildGraphNode(node, graph, deps, count, p->graph.graph));
  case CU_GRAPH_NODE_TYPE_EMPTY:
    return fromRuntime(cudaGraphAddEmptyNode(node, graph, deps, count));
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return fromRuntime(cudaGraphAddEventWaitNode(node, graph, deps, count,
                                                 p->eventWait.event));
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return fromRuntime(cudaGraphAddEventRecordNode(node, graph, deps, count,
                                                   p->eventRecord.event));
  case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    return fromRuntime(cudaGraphAddMemAllocNode(
        node, graph, deps, count,
        reinterpret_cast<cudaMemAllocNodeParams *>(&p->alloc)));
  case CU_GRAPH_NODE_TYPE_MEM_FREE:
    return fromRuntime(
        cudaGraphAddMemFreeNode(node, graph, deps, count, ptr(p->free.dptr)));
  default:
    return refuse("cuGraphAddNode for this node type (semaphore, batch "
                  "memory operation or conditional node)");
  }
}

CUresult cuGraphAddNode_v2(CUgraphNode *node, CUgraph graph,
                           const CUgraphNode *deps,
                           const CUgraphEdgeData *edgeData, size_t count,
                           CUgraphNodeParams *p) {
  static const CUgraphEdgeData plain = {};
  for (size_t i = 0; edgeData && i < count; ++i)
    if (std::memcmp(&edgeData[i], &plain, sizeof plain) != 0)
      return refuse("cuGraphAddNode_v2 with edge data other than the "
                    "default (programmatic dependencies)");
  return cuGraphAddNode(node, graph, deps, count, p);
}

CUresult cuGraphNodeSetParams(CUgraphNode node, CUgraphNodeParams *p) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  switch (typeOf(*p)) {
  case CU_GRAPH_NODE_TYPE_KERNEL:
    return cuGraphKernelNodeSetParams_v2(
        node, reinterpret_cast<const CUDA_KERNEL_NODE_PARAMS *>(&p->kernel));
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return cuGraphMemcpyNodeSetParams(node, &p->memcpy.copyParams);
  case CU_GRAPH_NODE_TYPE_MEMSET:
    return fromRuntime(cudaGraphMemsetNodeSetParams(
        node, memsetParams(reinterpret_cast<const CUDA_MEMSET_NODE_PARAMS *>(
                  &p->memset))));
  case CU_GRAPH_NODE_TYPE_HOST:
    return fromRuntime(cudaGraphHostNodeSetParams(
        node, reinterpret_cast<const cudaHostNodeParams *>(&p->host)));
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return fromRuntime(
        cudaGraphEventWaitNodeSetEvent(node, p->eventWait.event));
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return fromRuntime(
        cudaGraphEventRecordNodeSetEvent(node, p->eventRecord.event));
  default:
    return refuse("cuGraphNodeSetParams for this node type (child graph, "
                  "semaphore, memory or conditional node)");
  }
}

CUresult cuGraphExecNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                  CUgraphNodeParams *p) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  switch (typeOf(*p)) {
  case CU_GRAPH_NODE_TYPE_KERNEL:
    return cuGraphExecKernelNodeSetParams_v2(
        exec, node,
        reinterpret_cast<const CUDA_KERNEL_NODE_PARAMS *>(&p->kernel));
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return cuGraphExecMemcpyNodeSetParams(exec, node, &p->memcpy.copyParams,
                                          p->memcpy.copyCtx);
  case CU_GRAPH_NODE_TYPE_MEMSET:
    return cuGraphExecMemsetNodeSetParams(
        exec, node,
        reinterpret_cast<const CUDA_MEMSET_NODE_PARAMS *>(&p->memset),
        p->memset.ctx);
  case CU_GRAPH_NODE_TYPE_HOST:
    return fromRuntime(cudaGraphExecHostNodeSetParams(
        exec, node, reinterpret_cast<const cudaHostNodeParams *>(&p->host)));
  case CU_GRAPH_NODE_TYPE_GRAPH:
    return fromRuntime(
        cudaGraphExecChildGraphNodeSetParams(exec, node, p->graph.graph));
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return fromRuntime(
        cudaGraphExecEventWaitNodeSetEvent(exec, node, p->eventWait.event));
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return fromRuntime(
        cudaGraphExecEventRecordNodeSetEvent(exec, node, p->eventRecord.event));
  default:
    return refuse("cuGraphExecNodeSetParams for this node type (semaphore, "
                  "memory or conditional node)");
  }
}

} // extern "C"
