// Graphs built node by node (cudaGraphCreate, cudaGraphAdd*Node, node
// queries, clones, node and exec-node parameter updates) on the Runtime
// (docs/graphs.md). Like captured graphs they live on the client until
// cudaGraphInstantiate; a node is checked when it is made, as the stream
// call it stands for would be.
#include "core/graphs.h"
#include "core/handle.h"
#include "core/runtime.h"
#include "core/unsupported.h"

#include <algorithm>

namespace rc::rt {

cudaError_t Graphs::graphCreate(cudaGraph_t *graph, unsigned flags) {
  if (!graph || flags != 0)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t id = rt_.nextHandle_++;
  state_.createGraph(id);
  *graph = toHandle<cudaGraph_t>(id);
  return cudaSuccess;
}

cudaError_t Graphs::kernelNode(uint64_t kernelId, const cudaKernelNodeParams &p,
                               const char *call, GraphNode *out) {
  if (p.extra)
    return reportUnsupported(
        (std::string(call) + " with arguments in 'extra'").c_str());
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  return rt_.kernels_.kernelNodeLocked(kernelId, p.gridDim, p.blockDim,
                                       p.kernelParams, p.sharedMemBytes, call,
                                       0, out);
}

cudaError_t Graphs::memcpyNode(void *dst, const void *src, size_t count,
                               cudaMemcpyKind kind, const char *call,
                               GraphNode *out) {
  if (!dst || !src)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  if (cudaError_t err = rt_.copyDirectionLocked(dst, src, count, &kind, call))
    return err;
  if (kind == cudaMemcpyHostToHost)
    return reportUnsupported(
        (std::string(call) + " copying host to host").c_str());
  *out = GraphNode::copy(dst, src, count, kind);
  return cudaSuccess;
}

namespace {
// Byte offset of a position inside a pitched allocation.
size_t offsetOf(const cudaPitchedPtr &p, const cudaPos &pos) {
  return pos.x + p.pitch * (pos.y + p.ysize * pos.z);
}
} // namespace

// The memcpy node parameters programs pass are cudaMemcpy3DParms even for
// plain 1D copies; those (and any copy whose rows are back to back on both
// sides) become one contiguous copy.
cudaError_t Graphs::memcpy3DNode(const cudaMemcpy3DParms &p, const char *call,
                                 GraphNode *out) {
  if (p.srcArray || p.dstArray)
    return reportUnsupported(
        (std::string(call) + " with a CUDA array").c_str());
  const cudaExtent &e = p.extent;
  size_t rows = e.height * e.depth;
  bool packed = rows <= 1 ||
                (p.srcPtr.pitch == e.width && p.dstPtr.pitch == e.width &&
                 (e.depth <= 1 ||
                  (p.srcPtr.ysize == e.height && p.dstPtr.ysize == e.height)));
  if (!packed)
    return reportUnsupported(
        (std::string(call) + " with a 2D or 3D copy of pitched rows").c_str());
  auto *dst = static_cast<char *>(p.dstPtr.ptr);
  auto *src = static_cast<const char *>(p.srcPtr.ptr);
  if (!dst || !src)
    return cudaErrorInvalidValue;
  return memcpyNode(dst + offsetOf(p.dstPtr, p.dstPos),
                    src + offsetOf(p.srcPtr, p.srcPos), e.width * rows, p.kind,
                    call, out);
}

// A memset node sets elements of 1, 2 or 4 bytes; the wire's memset sets
// bytes, which is the same whenever every byte of the element's value is
// equal (zeroing, the common case).
cudaError_t Graphs::memsetNode(const cudaMemsetParams &p, const char *call,
                               GraphNode *out) {
  if (!p.dst ||
      (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4))
    return cudaErrorInvalidValue;
  const uint8_t byte = uint8_t(p.value);
  for (unsigned i = 1; i < p.elementSize; ++i)
    if (uint8_t(p.value >> (8 * i)) != byte)
      return reportUnsupported(
          (std::string(call) + " with a 2- or 4-byte value whose bytes differ")
              .c_str());
  const size_t rowBytes = p.width * p.elementSize;
  if (p.height > 1 && p.pitch != rowBytes)
    return reportUnsupported(
        (std::string(call) + " with rows narrower than their pitch").c_str());
  const size_t size = rowBytes * p.height;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  if (cudaError_t err =
          rt_.checkDeviceRangeLocked(call, "destination", p.dst, size))
    return err;
  *out = GraphNode::memset(p.dst, byte, size);
  return cudaSuccess;
}

cudaError_t Graphs::graphAddNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                 const cudaGraphNode_t *deps, size_t count,
                                 GraphNode n) {
  if (!node || (count && !deps))
    return cudaErrorInvalidValue;
  std::vector<uint64_t> after(count);
  for (size_t i = 0; i < count; ++i)
    after[i] = handleId(deps[i]);
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t handle = 0;
  if (cudaError_t err = state_.addGraphNode(handleId(graph), std::move(n),
                                            after.data(), count, &handle))
    return err;
  *node = toHandle<cudaGraphNode_t>(handle);
  return cudaSuccess;
}

cudaError_t Graphs::graphAddDependencies(cudaGraph_t graph,
                                         const cudaGraphNode_t *from,
                                         const cudaGraphNode_t *to,
                                         size_t count) {
  if (count && (!from || !to))
    return cudaErrorInvalidValue;
  std::vector<uint64_t> f(count), t(count);
  for (size_t i = 0; i < count; ++i)
    f[i] = handleId(from[i]), t[i] = handleId(to[i]);
  std::lock_guard<std::mutex> lock(rt_.mu_);
  return state_.addDependencies(handleId(graph), f.data(), t.data(), count);
}

cudaError_t Graphs::graphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                  size_t *count, bool rootsOnly) {
  if (!count)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  const Graph *g = state_.graph(handleId(graph));
  if (!g)
    return cudaErrorInvalidValue;
  std::vector<uint64_t> found;
  for (size_t i = 0; i < g->nodes.size(); ++i)
    if (!rootsOnly || g->deps[i].empty())
      found.push_back(g->handles[i]);
  if (!nodes) {
    *count = found.size();
    return cudaSuccess;
  }
  // CUDA fills what was asked for, nulls the rest, and says how many it
  // filled.
  for (size_t i = 0; i < *count; ++i)
    nodes[i] = i < found.size() ? toHandle<cudaGraphNode_t>(found[i]) : nullptr;
  *count = std::min(*count, found.size());
  return cudaSuccess;
}

cudaError_t Graphs::graphNodeGetType(cudaGraphNode_t node,
                                     cudaGraphNodeType *type) {
  if (!type)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  const GraphNode *n = state_.node(handleId(node));
  if (!n)
    return cudaErrorInvalidValue;
  *type = n->kind();
  return cudaSuccess;
}

cudaError_t Graphs::graphClone(cudaGraph_t *clone, cudaGraph_t graph) {
  if (!clone)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t id = rt_.nextHandle_++;
  if (!state_.cloneGraph(handleId(graph), id))
    return cudaErrorInvalidValue;
  *clone = toHandle<cudaGraph_t>(id);
  return cudaSuccess;
}

cudaError_t Graphs::graphNodeFindInClone(cudaGraphNode_t *node,
                                         cudaGraphNode_t original,
                                         cudaGraph_t clone) {
  if (!node)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t h = state_.nodeInClone(handleId(original), handleId(clone));
  if (!h)
    return cudaErrorInvalidValue;
  *node = toHandle<cudaGraphNode_t>(h);
  return cudaSuccess;
}

cudaError_t Graphs::graphNodeSet(cudaGraphNode_t node, GraphNode n) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  GraphNode *current = state_.node(handleId(node));
  if (!current || current->kind() != n.kind())
    return cudaErrorInvalidValue;
  *current = std::move(n);
  return cudaSuccess;
}

// CUDA's rules for an exec node's new parameters are those of
// cudaGraphExecUpdate for that one node; the graph node keeps its own.
cudaError_t Graphs::graphExecNodeSet(cudaGraphExec_t exec, cudaGraphNode_t node,
                                     GraphNode n) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  Exec *e = state_.exec(handleId(exec));
  if (!e)
    return cudaErrorInvalidValue;
  auto at = std::find(e->handles.begin(), e->handles.end(), handleId(node));
  if (at == e->handles.end())
    return cudaErrorInvalidValue; // not a node of the exec's graph
  const uint32_t i = uint32_t(at - e->handles.begin());
  if (updateRule(e->nodes[i], n) != cudaGraphExecUpdateSuccess)
    return cudaErrorInvalidValue;
  if (e->nodes[i] == n)
    return cudaSuccess;
  e->nodes[i] = std::move(n);
  if (!e->onClient)
    sendExecUpdateLocked(handleId(exec), {i}, e->nodes);
  return cudaSuccess;
}

} // namespace rc::rt
