// Graph memory nodes (docs/graphs.md, "Memory nodes"): an allocation node's
// memory is allocated when the node is made, at the address CUDA promises
// it will have at every launch, and is really freed only when no graph or
// exec holds the node any more and the program freed it (a free node's
// launch, cudaFree or cudaFreeAsync). Launches move no memory: an
// allocation that a launch leaves live is simply still there.
#include "core/graphs.h"
#include "core/handle.h"
#include "core/runtime.h"

#include <algorithm>

namespace rc::rt {

namespace {
uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }
} // namespace

cudaError_t Graphs::graphAllocationLocked(size_t size, const char *call,
                                          GraphNode *out) {
  if (size == 0)
    return cudaErrorInvalidValue;
  void *p = nullptr;
  if (cudaError_t err = rt_.mallocLocked(&p, size, call))
    return err;
  graphAllocs_[addrOf(p)] = GraphAllocation{size, false};
  *out = GraphNode();
  out->memory = MemoryStep::Alloc;
  out->dst = addrOf(p);
  out->size = size;
  return cudaSuccess;
}

cudaError_t Graphs::graphMemAllocNode(cudaMemAllocNodeParams *p,
                                      const char *call, GraphNode *out) {
  if (!p)
    return cudaErrorInvalidValue;
  const cudaMemPoolProps &pool = p->poolProps;
  if (pool.allocType != cudaMemAllocationTypePinned ||
      pool.handleTypes != cudaMemHandleTypeNone ||
      pool.location.type != cudaMemLocationTypeDevice)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.connectedDeviceLocked(pool.location.id))
    return err;
  // The allocation is on the location's device, as CUDA puts it.
  int &current = threadDevice();
  int saved = current;
  current = pool.location.id;
  cudaError_t err = graphAllocationLocked(p->bytesize, call, out);
  current = saved;
  if (err == cudaSuccess)
    p->dptr = reinterpret_cast<void *>(uintptr_t(out->dst));
  return err;
}

cudaError_t Graphs::graphMemFreeNode(void *dptr, GraphNode *out) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (!graphAllocs_.count(addrOf(dptr)))
    return cudaErrorInvalidValue; // CUDA: only graph allocations
  *out = GraphNode();
  out->memory = MemoryStep::Free;
  out->dst = addrOf(dptr);
  return cudaSuccess;
}

cudaError_t Graphs::graphMemoryNodeParams(cudaGraphNode_t node,
                                          cudaMemAllocNodeParams *alloc,
                                          void **freed) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  const GraphNode *n = state_.node(handleId(node));
  MemoryStep want = alloc ? MemoryStep::Alloc : MemoryStep::Free;
  if (!n || n->memory != want || (!alloc && !freed))
    return cudaErrorInvalidValue;
  void *addr = reinterpret_cast<void *>(uintptr_t(n->dst));
  if (freed) {
    *freed = addr;
    return cudaSuccess;
  }
  *alloc = cudaMemAllocNodeParams();
  alloc->poolProps.allocType = cudaMemAllocationTypePinned;
  alloc->poolProps.location.type = cudaMemLocationTypeDevice;
  auto dev = rt_.allocDevice_.find(n->dst);
  alloc->poolProps.location.id =
      dev == rt_.allocDevice_.end() ? 0 : dev->second;
  alloc->bytesize = n->size;
  alloc->dptr = addr;
  return cudaSuccess;
}

cudaError_t Graphs::graphMemAttribute(int device,
                                      cudaGraphMemAttributeType attr,
                                      void *value, bool set) {
  if (!value)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.connectedDeviceLocked(device))
    return err;
  auto *out = static_cast<uint64_t *>(value);
  bool high = attr == cudaGraphMemAttrUsedMemHigh ||
              attr == cudaGraphMemAttrReservedMemHigh;
  if (set) { // only the high watermarks may be reset, and only to 0
    if (!high || *out != 0)
      return cudaErrorInvalidValue;
    graphMemHigh_[device] = 0;
    return cudaSuccess;
  }
  uint64_t current = 0;
  for (const auto &a : graphAllocs_) {
    auto dev = rt_.allocDevice_.find(a.first);
    if (dev != rt_.allocDevice_.end() && dev->second == device)
      current += a.second.size;
  }
  uint64_t &highest = graphMemHigh_[device];
  highest = std::max(highest, current);
  switch (attr) {
  case cudaGraphMemAttrUsedMemCurrent:
  case cudaGraphMemAttrReservedMemCurrent:
    *out = current;
    return cudaSuccess;
  case cudaGraphMemAttrUsedMemHigh:
  case cudaGraphMemAttrReservedMemHigh:
    *out = highest;
    return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

bool Graphs::freeGraphMemoryLocked(void *ptr) {
  auto it = graphAllocs_.find(addrOf(ptr));
  if (it == graphAllocs_.end())
    return false;
  it->second.live = false;
  releaseGraphMemoryLocked(it->first);
  return true;
}

void Graphs::releaseGraphMemoryLocked(uint64_t addr) {
  auto it = graphAllocs_.find(addr);
  if (it == graphAllocs_.end() || it->second.live ||
      state_.holdsAllocation(addr))
    return;
  graphAllocs_.erase(it);
  rt_.freeLocked(reinterpret_cast<void *>(uintptr_t(addr)));
}

void Graphs::graphMemoryOfExecLocked(const Graph &g, Exec *exec) {
  std::vector<uint64_t> allocated, freed;
  for (const GraphNode &n : g.nodes) {
    if (n.memory == MemoryStep::Alloc)
      allocated.push_back(n.dst);
    else if (n.memory == MemoryStep::Free)
      freed.push_back(n.dst);
  }
  exec->allocations = allocated;
  for (uint64_t a : allocated)
    if (std::find(freed.begin(), freed.end(), a) == freed.end())
      exec->leavesLive.push_back(a);
  for (uint64_t f : freed)
    if (std::find(allocated.begin(), allocated.end(), f) == allocated.end())
      exec->frees.push_back(f);
}

void Graphs::launchedGraphMemoryLocked(const Exec &exec) {
  for (uint64_t a : exec.leavesLive)
    if (graphAllocs_.count(a))
      graphAllocs_[a].live = true;
  std::vector<uint64_t> frees = exec.frees;
  for (uint64_t f : frees)
    if (graphAllocs_.count(f)) {
      graphAllocs_[f].live = false;
      releaseGraphMemoryLocked(f);
    }
}

} // namespace rc::rt
