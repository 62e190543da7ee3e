// Memory: allocation table, copies in every direction (chunked; H2D data
// inline in the batch, D2H payloads in replies), memset, symbols.
#include "core/runtime.h"
#include "rc/content_hash.h"

#include "core/unsupported.h"
#include "manifests/startup_registry.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace rc::rt {

namespace {
uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }
} // namespace

cudaError_t Runtime::malloc(void **ptr, size_t size) {
  if (!ptr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  return mallocLocked(ptr, size, "cudaMalloc");
}

cudaError_t Runtime::mallocLocked(void **ptr, size_t size, const char *call) {
  *ptr = nullptr;
  if (size == 0)
    return cudaSuccess; // cudart returns a null pointer, successfully
  // More than the device has never succeeds: fail as cudart does, at once,
  // instead of asking the server to try.
  if (size > props_[size_t(threadDevice())].totalGlobalMem)
    return cudaErrorMemoryAllocation;
  ensureDeviceLocked();
  uint64_t addr = 0;
  bool filled = false;
  Sink sink;
  sink.index =
      appendLocked(wire::Command::Malloc,
                   wire::CreateMalloc(batch_.fbb(), size).Union(), {call, 0});
  sink.addr = &addr;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (!filled || !addr)
    return cudaErrorMemoryAllocation;
  allocs_[addr] = size;
  allocDevice_[addr] = threadDevice();
  *ptr = reinterpret_cast<void *>(uintptr_t(addr));
  return cudaSuccess;
}

cudaError_t Runtime::free(void *ptr) {
  if (!ptr)
    return cudaSuccess;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = unavailableLocked())
    return err;
  if (graphs_.freeGraphMemoryLocked(ptr))
    return cudaSuccess;
  void *base = nullptr;
  return freeLocked(freeManagedLocked(ptr, &base) ? base : ptr);
}

cudaError_t Runtime::freeLocked(void *ptr) {
  if (!allocs_.erase(addrOf(ptr)))
    return cudaErrorInvalidValue; // not the start of a cudaMalloc block
  allocDevice_.erase(addrOf(ptr));
  ensureDeviceLocked();
  // Batched: the server frees in order, after the work that uses it.
  appendLocked(wire::Command::Free,
               wire::CreateFree(batch_.fbb(), addrOf(ptr)).Union(),
               {"cudaFree", 0});
  afterAppendLocked();
  return cudaSuccess;
}

// "Pinned" host memory is plain aligned host memory, whose copies go
// through the wire; with a server on the same machine, large blocks are
// memory the server shares instead (runtime_host_share.cpp), which it reads
// back into directly.
cudaError_t Runtime::mallocHost(void **ptr, size_t size) {
  if (!ptr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t region = 0;
  void *p = shareHostLocked(size, &region);
  if (!p && posix_memalign(&p, 4096, size ? size : 1) != 0)
    return cudaErrorMemoryAllocation;
  hostMemory_.addBlock(p, size, region);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t Runtime::freeHost(void *ptr) {
  if (!ptr)
    return cudaSuccess;
  std::lock_guard<std::mutex> lock(mu_);
  size_t size = 0;
  uint64_t region = 0;
  if (!hostMemory_.removeBlock(ptr, &size, &region))
    return cudaErrorInvalidValue;
  if (!region) {
    std::free(ptr);
  } else {
    munmap(ptr, size);
    // The server keeps its own mapping until it replays this, after every
    // read-back already sent into the block.
    if (unavailableLocked() == cudaSuccess) {
      appendLocked(wire::Command::HostUnshare,
                   wire::CreateHostUnshare(batch_.fbb(), region).Union(),
                   {"cudaFreeHost", 0});
      afterAppendLocked();
    }
  }
  return cudaSuccess;
}

namespace {
bool inRanges(const std::map<uint64_t, size_t> &ranges, uint64_t a) {
  auto it = ranges.upper_bound(a);
  if (it == ranges.begin())
    return false;
  --it;
  return a < it->first + std::max<size_t>(it->second, 1);
}

// Whether [a, a + n) (n > 0) lies inside one of `ranges` (address ->
// size), or with `adjoining`, inside ranges that follow each other without
// a gap: VMM mappings made back to back (ggml grows its pool so) are one.
bool covered(const std::map<uint64_t, size_t> &ranges, uint64_t a, uint64_t n,
             bool adjoining) {
  auto it = ranges.upper_bound(a);
  if (it == ranges.begin())
    return false;
  --it;
  uint64_t end = it->first + it->second; // covered so far
  if (a >= end)
    return false;
  while (end - a < n) {
    auto next = adjoining ? ranges.find(end) : ranges.end();
    if (next == ranges.end() || next->second == 0)
      return false;
    end += next->second;
  }
  return true;
}
} // namespace

// Device addresses are known: they come from cudaMalloc or symbol lookups.
bool Runtime::isDevicePointerLocked(const void *p) const {
  return inRanges(allocs_, addrOf(p)) || inRanges(symbolRanges_, addrOf(p)) ||
         inRanges(vmm_.mappedLocked(), addrOf(p));
}

cudaError_t Runtime::checkDeviceRangeLocked(const char *call, const char *role,
                                            const void *p, size_t n) const {
  uint64_t a = addrOf(p);
  if (covered(allocs_, a, n, false) || covered(symbolRanges_, a, n, false) ||
      covered(vmm_.mappedLocked(), a, n, true))
    return cudaSuccess;
  std::fprintf(stderr,
               "remote-clang: %s: %s range 0x%" PRIx64 " + %zu bytes is not "
               "inside one device allocation (cudaErrorInvalidValue)\n",
               call, role, a, n);
  return cudaErrorInvalidValue;
}

cudaError_t Runtime::allocationRange(const void *p, void **base, size_t *size) {
  if (!base || !size)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  const std::map<uint64_t, size_t> *all[] = {&allocs_, &symbolRanges_,
                                             &vmm_.mappedLocked()};
  for (const auto *ranges : all) {
    auto it = ranges->upper_bound(addrOf(p));
    if (it == ranges->begin() || !inRanges(*ranges, addrOf(p)))
      continue;
    --it;
    *base = reinterpret_cast<void *>(uintptr_t(it->first));
    *size = it->second;
    return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

cudaError_t Runtime::pointerAttributes(cudaPointerAttributes *attr,
                                       const void *p) {
  if (!attr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  std::memset(attr, 0, sizeof *attr);
  attr->device = threadDevice();
  auto owner = allocDevice_.upper_bound(addrOf(p));
  if (owner != allocDevice_.begin() && inRanges(allocs_, addrOf(p)))
    attr->device = std::prev(owner)->second;
  ManagedMirrors::Range mirror;
  if (managed_.find(p, 0, &mirror)) {
    attr->type = cudaMemoryTypeManaged;
    attr->devicePointer = const_cast<void *>(p);
    attr->hostPointer = const_cast<void *>(p);
    return cudaSuccess;
  }
  if (isDevicePointerLocked(p)) {
    attr->type = cudaMemoryTypeDevice;
    attr->devicePointer = const_cast<void *>(p);
    return cudaSuccess;
  }
  if (hostMemory_.isPinned(p)) {
    attr->type = cudaMemoryTypeHost;
    attr->hostPointer = const_cast<void *>(p);
    return cudaSuccess;
  }
  attr->type = cudaMemoryTypeUnregistered; // like cudart >= 11
  return cudaSuccess;
}

cudaError_t Runtime::memcpy(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream,
                            bool async, bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  cudaError_t err =
      memcpyLocked(dst, src, count, kind, stream, async, perThread,
                   async ? "cudaMemcpyAsync" : "cudaMemcpy");
  // A synchronous copy waits for the device: managed memory it wrote is
  // the host's again.
  return async ? err : downloadManagedLocked(err);
}

cudaError_t Runtime::copyDirectionLocked(const void *dst, const void *src,
                                         size_t count, cudaMemcpyKind *kind,
                                         const char *call) const {
  if (*kind == cudaMemcpyDefault) {
    // Resolvable because every device address came from our cudaMalloc.
    bool d = isDevicePointerLocked(dst), s = isDevicePointerLocked(src);
    *kind = d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
              : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  // Managed memory is copied where its current copy is, whatever the kind
  // says (managed_memory.h).
  *kind = managed_.copyKind(dst, src, *kind);
  if (*kind == cudaMemcpyHostToHost)
    return cudaSuccess;
  if (*kind != cudaMemcpyHostToDevice && *kind != cudaMemcpyDeviceToHost &&
      *kind != cudaMemcpyDeviceToDevice)
    return cudaErrorInvalidMemcpyDirection;
  if (*kind != cudaMemcpyHostToDevice)
    if (cudaError_t err = checkDeviceRangeLocked(call, "source", src, count))
      return err;
  if (*kind != cudaMemcpyDeviceToHost)
    if (cudaError_t err =
            checkDeviceRangeLocked(call, "destination", dst, count))
      return err;
  return cudaSuccess;
}

cudaError_t Runtime::memcpyLocked(void *dst, const void *src, size_t count,
                                  cudaMemcpyKind kind, cudaStream_t stream,
                                  bool async, bool perThread,
                                  const char *call) {
  if (count == 0)
    return cudaSuccess;
  if (!dst || !src)
    return cudaErrorInvalidValue;
  if (cudaError_t err = copyDirectionLocked(dst, src, count, &kind, call))
    return err;
  if (kind == cudaMemcpyHostToHost) {
    std::memmove(dst, src, count);
    return cudaSuccess;
  }
  uint64_t sid;
  if (cudaError_t err = streams_.connectedStreamLocked(stream, perThread, &sid))
    return err;
  if (graphs_.stateLocked().capturing(
          sid)) { // a graph node instead (graph_runtime.cpp)
    bool captured;
    return graphs_.captureLocked(sid, GraphNode::copy(dst, src, count, kind),
                                 &captured);
  }
  ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();

  if (kind == cudaMemcpyDeviceToDevice) {
    // No host-side effect: batched even for cudaMemcpy (cudart does not
    // block the host for D2D either).
    appendLocked(
        wire::Command::MemcpyD2D,
        wire::CreateMemcpyD2D(fbb, addrOf(dst), addrOf(src), count, sid)
            .Union(),
        {call, 0});
    afterAppendLocked();
    return cudaSuccess;
  }

  if (kind == cudaMemcpyHostToDevice) {
    if (!movingManaged_) // the host's copy of managed memory, too
      managed_.writeThrough(dst, src, count);
    return transfers_.uploadLocked(dst, src, count, sid, async, call);
  }

  // Device to host (the transfer engine says how).
  managed_.prepareHostWrite(dst, count); // into a mirror: it is the newer
  return transfers_.readBackLocked(dst, src, count, sid, async, call);
}

// Stream-ordered allocation without a pool: the memory comes from an
// ordinary Malloc (one round trip) and is usable at once, so at the
// stream's point too; the free is the ordinary one, which rc-server runs
// after the work already sent. In a stream capture both become graph
// memory nodes (graph_memory_runtime.cpp).
cudaError_t Runtime::mallocAsync(void **ptr, size_t size, cudaStream_t stream) {
  if (!ptr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t sid;
  if (cudaError_t err = streams_.connectedStreamLocked(stream, false, &sid))
    return err;
  if (!graphs_.stateLocked().capturing(sid))
    return mallocLocked(ptr, size, "cudaMallocAsync");
  GraphNode node;
  if (cudaError_t err = graphs_.graphAllocationLocked(
          size, "cudaMallocAsync (captured)", &node))
    return err;
  uint64_t addr = node.dst;
  bool captured;
  if (cudaError_t err =
          graphs_.captureLocked(sid, std::move(node), &captured)) {
    graphs_.dropGraphAllocationLocked(addr);
    freeLocked(reinterpret_cast<void *>(uintptr_t(addr)));
    return err;
  }
  *ptr = reinterpret_cast<void *>(uintptr_t(addr));
  return cudaSuccess;
}

cudaError_t Runtime::freeAsync(void *ptr, cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t sid;
    if (cudaError_t err = streams_.connectedStreamLocked(stream, false, &sid))
      return err;
    if (graphs_.stateLocked().capturing(sid)) {
      if (!graphs_.isGraphAllocationLocked(addrOf(ptr)))
        return reportUnsupported("cudaFreeAsync in a stream capture of "
                                 "memory no graph allocated");
      GraphNode node;
      node.memory = MemoryStep::Free;
      node.dst = addrOf(ptr);
      bool captured;
      return graphs_.captureLocked(sid, std::move(node), &captured);
    }
  }
  return free(ptr);
}

cudaError_t Runtime::memset(void *dst, int value, size_t count,
                            cudaStream_t stream, bool perThread) {
  if (count == 0)
    return cudaSuccess;
  if (!dst)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  if (cudaError_t err =
          checkDeviceRangeLocked("cudaMemset", "destination", dst, count))
    return err;
  if (managed_.meetsHostAttached(dst, count)) {
    std::fprintf(stderr,
                 "remote-clang: cudaMemset: 0x%" PRIx64 " is managed memory "
                 "attached to the host (cudaMemAttachHost), which the device "
                 "may not touch on GPUs without concurrent managed access; "
                 "attach it to a stream or globally first "
                 "(cudaStreamAttachMemAsync) (cudaErrorInvalidValue)\n",
                 addrOf(dst));
    return cudaErrorInvalidValue;
  }
  uint64_t sid;
  if (cudaError_t err = streams_.wireStreamLocked(stream, perThread, &sid))
    return err;
  if (graphs_.stateLocked().capturing(
          sid)) { // a graph node instead (graph_runtime.cpp)
    bool captured;
    return graphs_.captureLocked(
        sid, GraphNode::memset(dst, uint8_t(value), count), &captured);
  }
  ensureDeviceLocked();
  appendLocked(
      wire::Command::Memset,
      wire::CreateMemset(batch_.fbb(), addrOf(dst), uint8_t(value), count, sid)
          .Union(),
      {"cudaMemset", 0});
  afterAppendLocked();
  return cudaSuccess;
}

// ---- symbols --------------------------------------------------------------

cudaError_t Runtime::variableLocked(const void *symbol,
                                    const manifest::Variable **var) {
  uint64_t moduleHash;
  std::string name;
  if (!symbol ||
      !StartupRegistry::instance().variable(symbol, &moduleHash, &name))
    return cudaErrorInvalidSymbol;
  *var = index_.variableFor(moduleHash, name);
  if (!*var) {
    std::fprintf(stderr,
                 "remote-clang: device variable %s is registered but no "
                 "loaded manifest describes it (is <program>.rcm beside the "
                 "binary, or in RC_MANIFEST?)\n",
                 name.c_str());
    return cudaErrorInvalidSymbol;
  }
  return cudaSuccess;
}

// One round trip per variable per session; the address is then cached and
// symbol copies become plain device copies.
cudaError_t Runtime::symbolAddressLocked(const manifest::Variable *var,
                                         uint64_t *addr) {
  auto key = std::make_pair(threadDevice(), var->id());
  auto it = symbolAddrs_.find(key);
  if (it != symbolAddrs_.end()) {
    *addr = it->second;
    return cudaSuccess;
  }
  ensureDeviceLocked();
  bool filled = false;
  Sink sink;
  sink.index =
      appendLocked(wire::Command::SymbolAddress,
                   wire::CreateSymbolAddress(batch_.fbb(), var->id()).Union(),
                   {"cudaGetSymbolAddress", 0});
  sink.addr = addr;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (!filled || !*addr)
    return cudaErrorInvalidSymbol;
  symbolAddrs_[key] = *addr;
  symbolRanges_[*addr] = var->size();
  return cudaSuccess;
}

cudaError_t Runtime::symbolAddress(void **devPtr, const void *symbol) {
  if (!devPtr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  const manifest::Variable *var;
  if (cudaError_t err = variableLocked(symbol, &var))
    return err;
  uint64_t addr = 0;
  if (cudaError_t err = symbolAddressLocked(var, &addr))
    return err;
  *devPtr = reinterpret_cast<void *>(uintptr_t(addr));
  return cudaSuccess;
}

cudaError_t Runtime::symbolSize(size_t *size, const void *symbol) {
  if (!size)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  const manifest::Variable *var;
  if (cudaError_t err = variableLocked(symbol, &var))
    return err;
  *size = var->size();
  return cudaSuccess;
}

cudaError_t Runtime::symbolRangeLocked(const void *symbol, size_t count,
                                       size_t offset, uint64_t *addr) {
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  const manifest::Variable *var;
  if (cudaError_t err = variableLocked(symbol, &var))
    return err;
  if (offset > var->size() || count > var->size() - offset)
    return cudaErrorInvalidValue;
  if (cudaError_t err = symbolAddressLocked(var, addr))
    return err;
  *addr += offset;
  return cudaSuccess;
}

cudaError_t Runtime::memcpyToSymbol(const void *symbol, const void *src,
                                    size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream,
                                    bool async, bool perThread) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t addr;
  if (cudaError_t err = symbolRangeLocked(symbol, count, offset, &addr))
    return err;
  // cudaMemcpyDefault resolves in memcpyLocked (the symbol is device memory).
  return memcpyLocked(reinterpret_cast<void *>(uintptr_t(addr)), src, count,
                      kind, stream, async, perThread,
                      async ? "cudaMemcpyToSymbolAsync" : "cudaMemcpyToSymbol");
}

cudaError_t Runtime::memcpyFromSymbol(void *dst, const void *symbol,
                                      size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream,
                                      bool async, bool perThread) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t addr;
  if (cudaError_t err = symbolRangeLocked(symbol, count, offset, &addr))
    return err;
  return memcpyLocked(dst, reinterpret_cast<void *>(uintptr_t(addr)), count,
                      kind, stream, async, perThread,
                      async ? "cudaMemcpyFromSymbolAsync"
                            : "cudaMemcpyFromSymbol");
}

} // namespace rc::rt
