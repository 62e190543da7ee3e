// The runtime's CUDA graphs (docs/graphs.md): stream capture, graphs built
// node by node, instantiation, update and launch (graph_runtime.cpp,
// graph_build_runtime.cpp), and graph memory nodes
// (graph_memory_runtime.cpp). The model itself (captures, graphs, execs)
// is graphs/' GraphState, which this class owns and drives; what reaches
// the server is the few commands those files send.
//
// Locking: guarded by the runtime's lock (runtime.h, "Locking"); the public
// calls take it, *Locked ones expect it held.
#ifndef RC_RT_GRAPHS_H
#define RC_RT_GRAPHS_H

#include "graphs/graph_state.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace rc::rt {

class Runtime;

class Graphs {
public:
  explicit Graphs(Runtime &rt) : rt_(rt) {}
  Graphs(const Graphs &) = delete;
  Graphs &operator=(const Graphs &) = delete;

  // ---- capture, instantiation, launch (graph_runtime.cpp) --------------
  cudaError_t streamBeginCapture(cudaStream_t stream,
                                 cudaStreamCaptureMode mode, bool perThread);
  cudaError_t streamEndCapture(cudaStream_t stream, cudaGraph_t *graph,
                               bool perThread);
  cudaError_t streamIsCapturing(cudaStream_t stream,
                                cudaStreamCaptureStatus *status,
                                unsigned long long *id, bool perThread);
  cudaError_t graphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph);
  cudaError_t graphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                              cudaGraphExecUpdateResultInfo *info);
  cudaError_t graphLaunch(cudaGraphExec_t exec, cudaStream_t stream,
                          bool perThread);
  cudaError_t graphDestroy(cudaGraph_t graph);
  cudaError_t graphExecDestroy(cudaGraphExec_t exec);

  // ---- graphs built node by node (graph_build_runtime.cpp) -------------
  cudaError_t graphCreate(cudaGraph_t *graph, unsigned flags);
  // A node is built first, checked like the stream call it stands for
  // (launch configuration and arguments, device ranges); `call` names the
  // API in messages.
  cudaError_t kernelNode(uint64_t kernelId, const cudaKernelNodeParams &p,
                         const char *call, GraphNode *out);
  cudaError_t memcpyNode(void *dst, const void *src, size_t count,
                         cudaMemcpyKind kind, const char *call, GraphNode *out);
  cudaError_t memcpy3DNode(const cudaMemcpy3DParms &p, const char *call,
                           GraphNode *out);
  cudaError_t memsetNode(const cudaMemsetParams &p, const char *call,
                         GraphNode *out);
  cudaError_t graphAddNode(cudaGraphNode_t *node, cudaGraph_t graph,
                           const cudaGraphNode_t *deps, size_t count,
                           GraphNode n);
  cudaError_t graphAddDependencies(cudaGraph_t graph,
                                   const cudaGraphNode_t *from,
                                   const cudaGraphNode_t *to, size_t count);
  // cudaGraphGetNodes, or cudaGraphGetRootNodes with `rootsOnly`.
  cudaError_t graphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                            size_t *count, bool rootsOnly);
  cudaError_t graphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type);
  cudaError_t graphClone(cudaGraph_t *clone, cudaGraph_t graph);
  cudaError_t graphNodeFindInClone(cudaGraphNode_t *node,
                                   cudaGraphNode_t original, cudaGraph_t clone);
  // New parameters for a node of a graph, or for the node an exec made of
  // it; the node's kind (and a copy's memory types) must stay.
  cudaError_t graphNodeSet(cudaGraphNode_t node, GraphNode n);
  cudaError_t graphExecNodeSet(cudaGraphExec_t exec, cudaGraphNode_t node,
                               GraphNode n);

  // ---- graph memory nodes (graph_memory_runtime.cpp) -------------------
  // cudaGraphAddMemAllocNode's node: allocated now, p->dptr set.
  cudaError_t graphMemAllocNode(cudaMemAllocNodeParams *p, const char *call,
                                GraphNode *out);
  // cudaGraphAddMemFreeNode's node: dptr must be a graph allocation.
  cudaError_t graphMemFreeNode(void *dptr, GraphNode *out);
  // cudaGraphMemAllocNodeGetParams (alloc) / MemFreeNodeGetParams (freed).
  cudaError_t graphMemoryNodeParams(cudaGraphNode_t node,
                                    cudaMemAllocNodeParams *alloc,
                                    void **freed);
  // cudaDeviceGetGraphMemAttribute / SetGraphMemAttribute (set): a uint64_t.
  cudaError_t graphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                void *value, bool set);

  // ---- with the runtime's lock held -------------------------------------
  // The model: captures, graphs and execs (client-side).
  GraphState &stateLocked() { return state_; }
  // While `stream` captures, async work becomes a node instead of a
  // command: *captured tells the caller not to append it.
  cudaError_t captureLocked(uint64_t stream, GraphNode node, bool *captured);
  // Calls that CUDA forbids on a capturing stream (syncs, host copies):
  // cudaErrorStreamCaptureUnsupported, and the capture is invalidated.
  cudaError_t refuseInCaptureLocked(uint64_t stream, const char *call);
  // An allocation node's memory, made now.
  cudaError_t graphAllocationLocked(size_t size, const char *call,
                                    GraphNode *out);
  // ptr a graph allocation: the program freed it (cudaFree, cudaFreeAsync);
  // else false.
  bool freeGraphMemoryLocked(void *ptr);
  // Whether `addr` is a graph allocation's; forgetting one (a captured
  // cudaMallocAsync the capture refused), or all (cudaDeviceReset: they are
  // gone with every other allocation).
  bool isGraphAllocationLocked(uint64_t addr) const {
    return graphAllocs_.count(addr) != 0;
  }
  void dropGraphAllocationLocked(uint64_t addr) { graphAllocs_.erase(addr); }
  void forgetGraphMemoryLocked() { graphAllocs_.clear(); }

private:
  Runtime &rt_;

  void sendExecUpdateLocked(uint64_t exec, const std::vector<uint32_t> &indices,
                            const NodeList &nodes);
  cudaError_t replayOnClient(const NodeList &steps, cudaStream_t stream,
                             bool perThread);
  // A device node as an ordinary command of `stream`.
  cudaError_t appendNodeLocked(const GraphNode &n, cudaStream_t stream,
                               bool perThread);
  // Frees `addr` for real once it is not live and nothing holds its node.
  void releaseGraphMemoryLocked(uint64_t addr);
  // The allocations an exec of `g` leaves live and frees, into *exec.
  void graphMemoryOfExecLocked(const Graph &g, Exec *exec);
  void launchedGraphMemoryLocked(const Exec &exec);

  GraphState state_; // captures, graphs and execs (client-side)
  // Graph memory by address: live when a launch left it allocated.
  struct GraphAllocation {
    size_t size = 0;
    bool live = false;
  };
  std::map<uint64_t, GraphAllocation> graphAllocs_;
  std::map<int, uint64_t> graphMemHigh_; // device -> high watermark
};

} // namespace rc::rt

#endif
