// Managed memory: cudaMallocManaged as device memory plus a host mirror at
// the same address, uploaded before device work when the host wrote it,
// fenced from the host while device work may change it, and read back at
// the next synchronization (managed_memory.h; docs/managed-memory.md).
#include "core/runtime.h"

#include <cstdio>
#include <unistd.h>

namespace rc::rt {

namespace {
uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }
void *pointerAt(uint64_t a) { return reinterpret_cast<void *>(uintptr_t(a)); }

// Device allocations tried before giving up on finding an address that is
// free in this process too (each failed one is held until the end, so every
// try gets a new address).
constexpr int kPlacementTries = 16;
} // namespace

cudaError_t Runtime::mallocManaged(void **ptr, size_t size, unsigned flags) {
  if (!ptr || size == 0 ||
      (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  *ptr = nullptr;
  // The mirror is whole pages at a page boundary inside the allocation, so
  // that no two mirrors share a page (protection is per page).
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  if (size > ~size_t(0) - 2 * page)
    return cudaErrorMemoryAllocation;
  const size_t mirrorBytes = (size + page - 1) / page * page;
  uint64_t addr = 0, base = 0;
  if (cudaError_t err = placeMirrorLocked(
          size, mirrorBytes, page, flags == cudaMemAttachHost, &addr, &base))
    return err;
  managedAllocs_[addr] = ManagedAllocation{base, size};
  // The mirror's pages are zero: so is the device copy, without sending
  // the zeros (a memset that fences nothing: it changes nothing the host
  // would need to read back).
  ensureDeviceLocked();
  managed_.ignoreDeviceWork(true);
  appendLocked(
      wire::Command::Memset,
      wire::CreateMemset(batch_.fbb(), addr, 0, mirrorBytes, 0).Union(),
      {"cudaMallocManaged", 0});
  managed_.ignoreDeviceWork(false);
  afterAppendLocked();
  *ptr = pointerAt(addr);
  return cudaSuccess;
}

cudaError_t Runtime::placeMirrorLocked(size_t size, size_t mirrorBytes,
                                       size_t page, bool attachedToHost,
                                       uint64_t *addr, uint64_t *base) {
  std::vector<void *> taken; // held, so that each try gets a new address
  cudaError_t result = cudaErrorMemoryAllocation;
  std::string why;
  for (int i = 0; i < kPlacementTries; ++i) {
    void *p = nullptr;
    result = mallocLocked(&p, mirrorBytes + page, "cudaMallocManaged");
    if (result != cudaSuccess)
      break; // out of device memory: as quiet as cudaMalloc
    uint64_t a = (addrOf(p) + page - 1) / page * page;
    bool addressTaken = false;
    if (managed_.map(a, mirrorBytes, size, attachedToHost, &addressTaken,
                     &why)) {
      *addr = a;
      *base = addrOf(p);
      break;
    }
    taken.push_back(p);
    result = cudaErrorMemoryAllocation;
    if (!addressTaken)
      break;
    why = std::to_string(kPlacementTries) +
          " device addresses in a row are in use by this process; no host "
          "mirror could be placed";
  }
  for (void *p : taken)
    freeLocked(p);
  if (result != cudaSuccess && !why.empty())
    std::fprintf(stderr, "remote-clang: cudaMallocManaged: %s\n", why.c_str());
  return result;
}

cudaError_t Runtime::memAdvise(const void *p, size_t count, int advice,
                               int device) {
  std::lock_guard<std::mutex> lock(mu_);
  ManagedMirrors::Range r;
  bool knownAdvice = advice >= cudaMemAdviseSetReadMostly &&
                     advice <= cudaMemAdviseUnsetAccessedBy;
  bool knownDevice = device == cudaCpuDeviceId ||
                     (device >= 0 && size_t(device) < props_.size());
  if (!count || !knownAdvice || !knownDevice || !managed_.find(p, count, &r))
    return cudaErrorInvalidValue;
  return cudaSuccess; // a hint: the mirrors move the same way regardless
}

cudaError_t Runtime::memPrefetch(const void *p, size_t count,
                                 cudaStream_t stream, bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t sid;
  if (cudaError_t err = streams_.connectedStreamLocked(stream, perThread, &sid))
    return err;
  ManagedMirrors::Range r;
  if (!count || !managed_.find(p, count, &r))
    return cudaErrorInvalidValue;
  // CUDA's answer on GPUs without concurrent managed access, whatever the
  // destination (the host too): the stream's device must have it.
  return cudaErrorInvalidDevice;
}

cudaError_t Runtime::streamAttachMemory(cudaStream_t stream, void *p,
                                        size_t length, unsigned flags,
                                        bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t sid;
  if (cudaError_t err = streams_.connectedStreamLocked(stream, perThread, &sid))
    return err;
  bool knownFlags = flags == cudaMemAttachGlobal ||
                    flags == cudaMemAttachHost || flags == cudaMemAttachSingle;
  auto it = managedAllocs_.find(addrOf(p));
  if (!knownFlags || it == managedAllocs_.end() ||
      (length && length != it->second.size))
    return cudaErrorInvalidValue; // CUDA: a whole allocation (length 0: all)
  // To the host: it stays accessible while the device works (once the
  // next read-back has brought it up to date, when device work may have
  // changed it). Globally or to a stream: fenced while any device work is
  // outstanding, whichever stream; the runtime does not follow streams.
  if (flags == cudaMemAttachHost)
    managed_.attachToHost(it->first);
  else
    managed_.attachToDevice(it->first);
  return cudaSuccess;
}

bool Runtime::freeManagedLocked(void *ptr, void **base) {
  auto it = managedAllocs_.find(addrOf(ptr));
  if (it == managedAllocs_.end())
    return false;
  // A read-back still on its way may land in the mirror: let it land first.
  waitSeqLocked(0, /*all=*/true);
  managed_.unmap(it->first);
  *base = pointerAt(it->second.base);
  managedAllocs_.erase(it);
  return true;
}

void Runtime::uploadManagedLocked() {
  if (movingManaged_ || !managed_.anyDirty())
    return;
  std::vector<ManagedMirrors::Range> dirty = managed_.takeDirty();
  movingManaged_ = true;
  // On the legacy stream, which orders against every blocking stream: the
  // work about to be appended sees the host's writes. The bytes are read
  // through the runtime's view: the mirror may be fenced.
  for (const ManagedMirrors::Range &r : dirty)
    memcpyLocked(pointerAt(r.addr), managed_.runtimeView(r.addr), r.size,
                 cudaMemcpyHostToDevice, cudaStreamLegacy, /*async=*/true,
                 /*perThread=*/false, "managed memory upload");
  movingManaged_ = false;
}

cudaError_t Runtime::downloadManagedLocked(cudaError_t syncResult) {
  if (syncResult != cudaSuccess || movingManaged_ ||
      !managed_.deviceWorkPending())
    return syncResult;
  movingManaged_ = true;
  // The fenced mirrors, but not those written since the last device work
  // was queued (a mirror attached back from the host): they are newer and
  // go up before the next device work. Into the runtime's views: the
  // application's pages stay fenced until every byte has landed.
  std::vector<ManagedMirrors::Range> back = managed_.readBackSet();
  cudaError_t err = cudaSuccess;
  for (const ManagedMirrors::Range &r : back) {
    err = memcpyLocked(managed_.runtimeView(r.addr), pointerAt(r.addr), r.size,
                       cudaMemcpyDeviceToHost, cudaStreamLegacy,
                       /*async=*/true, /*perThread=*/false,
                       "managed memory read-back");
    if (err != cudaSuccess)
      break;
  }
  if (err == cudaSuccess) {
    countRoundTripLocked("managed memory read-back");
    err = waitSeqLocked(0, /*all=*/true);
  }
  if (err == cudaSuccess)
    err = takePendingErrorLocked();
  if (err == cudaSuccess)
    managed_.clearDeviceWork();
  movingManaged_ = false;
  return err;
}

} // namespace rc::rt
