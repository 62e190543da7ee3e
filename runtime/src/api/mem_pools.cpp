#include "api/mem_pools.h"

#include "api/global.h"
#include "core/enum_number.h"
#include "core/unsupported.h"

#include <algorithm>
#include <cstring>

namespace rc::rt {

MemPools &MemPools::instance() {
  static MemPools *pools = new MemPools; // never destroyed
  return *pools;
}

cudaError_t MemPools::deviceCount(int *count) {
  return runtime().deviceCount(count);
}

MemPools::Pool *MemPools::poolLocked(cudaMemPool_t pool) {
  auto *p = reinterpret_cast<Pool *>(pool);
  if (created_.count(p))
    return p;
  for (auto &d : defaults_)
    if (d.get() == p)
      return p;
  return nullptr;
}

cudaError_t MemPools::defaultPool(int device, cudaMemPool_t *pool) {
  int count = 0;
  if (!pool)
    return cudaErrorInvalidValue;
  if (cudaError_t err = deviceCount(&count))
    return err;
  if (device < 0 || device >= count)
    return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(mu_);
  while (defaults_.size() < size_t(count)) {
    defaults_.push_back(std::make_unique<Pool>());
    defaults_.back()->device = int(defaults_.size() - 1);
    defaults_.back()->isDefault = true;
  }
  *pool = reinterpret_cast<cudaMemPool_t>(defaults_[size_t(device)].get());
  return cudaSuccess;
}

cudaError_t MemPools::currentPool(int device, cudaMemPool_t *pool) {
  if (cudaError_t err = defaultPool(device, pool))
    return err;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = current_.find(device);
  if (it != current_.end())
    *pool = reinterpret_cast<cudaMemPool_t>(it->second);
  return cudaSuccess;
}

cudaError_t MemPools::setCurrentPool(int device, cudaMemPool_t pool) {
  cudaMemPool_t own = nullptr;
  if (cudaError_t err = defaultPool(device, &own))
    return err;
  std::lock_guard<std::mutex> lock(mu_);
  Pool *p = poolLocked(pool);
  if (!p || p->device != device)
    return cudaErrorInvalidValue;
  current_[device] = p;
  return cudaSuccess;
}

// Pools of pinned device memory on one device; a pool whose memory could
// be exported to another process (a shareable handle type) is IPC, which
// names memory on the GPU's host: refused by name.
cudaError_t MemPools::create(const cudaMemPoolProps *props,
                             cudaMemPool_t *pool) {
  if (!props || !pool ||
      enumNumber(props->allocType) != cudaMemAllocationTypePinned ||
      enumNumber(props->location.type) != cudaMemLocationTypeDevice)
    return cudaErrorInvalidValue;
  if (enumNumber(props->handleTypes) != cudaMemHandleTypeNone)
    return reportUnsupported("cudaMemPoolCreate with a shareable handle type "
                             "(memory for other processes)");
  int count = 0;
  if (cudaError_t err = deviceCount(&count))
    return err;
  if (props->location.id < 0 || props->location.id >= count)
    return cudaErrorInvalidDevice;
  auto p = std::make_unique<Pool>();
  p->device = props->location.id;
  std::lock_guard<std::mutex> lock(mu_);
  *pool = reinterpret_cast<cudaMemPool_t>(p.get());
  created_.insert(p.release());
  return cudaSuccess;
}

// The pool goes at once: its allocations stay valid until freed, and a
// device whose current pool it was takes its default pool again, as CUDA
// does.
cudaError_t MemPools::destroy(cudaMemPool_t pool) {
  std::lock_guard<std::mutex> lock(mu_);
  Pool *p = poolLocked(pool);
  if (!p || p->isDefault)
    return cudaErrorInvalidValue;
  for (auto it = current_.begin(); it != current_.end();)
    it = it->second == p ? current_.erase(it) : std::next(it);
  for (auto &a : allocations_)
    if (a.second.first == p)
      a.second.first = nullptr;
  created_.erase(p);
  delete p;
  return cudaSuccess;
}

cudaError_t MemPools::device(cudaMemPool_t pool, int *device) {
  std::lock_guard<std::mutex> lock(mu_);
  Pool *p = poolLocked(pool);
  if (!p)
    return cudaErrorInvalidValue;
  *device = p->device;
  return cudaSuccess;
}

cudaError_t MemPools::setAttribute(cudaMemPool_t pool, int attr,
                                   const void *value) {
  std::lock_guard<std::mutex> lock(mu_);
  Pool *p = poolLocked(pool);
  if (!p || !value)
    return cudaErrorInvalidValue;
  switch (attr) {
  case cudaMemPoolAttrReleaseThreshold:
    std::memcpy(&p->releaseThreshold, value, sizeof p->releaseThreshold);
    return cudaSuccess;
  case cudaMemPoolReuseFollowEventDependencies:
    std::memcpy(&p->reuseFollowEvents, value, sizeof(int));
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    std::memcpy(&p->reuseOpportunistic, value, sizeof(int));
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    std::memcpy(&p->reuseInternal, value, sizeof(int));
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh: {
    uint64_t v; // a high-water mark may only be reset, to 0
    std::memcpy(&v, value, sizeof v);
    if (v != 0)
      return cudaErrorInvalidValue;
    p->usedHigh = p->used;
    return cudaSuccess;
  }
  default:
    return cudaErrorInvalidValue;
  }
}

cudaError_t MemPools::getAttribute(cudaMemPool_t pool, int attr, void *value) {
  std::lock_guard<std::mutex> lock(mu_);
  Pool *p = poolLocked(pool);
  if (!p || !value)
    return cudaErrorInvalidValue;
  switch (attr) {
  case cudaMemPoolAttrReleaseThreshold:
    std::memcpy(value, &p->releaseThreshold, sizeof p->releaseThreshold);
    return cudaSuccess;
  case cudaMemPoolReuseFollowEventDependencies:
    std::memcpy(value, &p->reuseFollowEvents, sizeof(int));
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    std::memcpy(value, &p->reuseOpportunistic, sizeof(int));
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    std::memcpy(value, &p->reuseInternal, sizeof(int));
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemCurrent:
  case cudaMemPoolAttrUsedMemCurrent:
    std::memcpy(value, &p->used, sizeof p->used);
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh:
    std::memcpy(value, &p->usedHigh, sizeof p->usedHigh);
    return cudaSuccess;
  default:
    return cudaErrorInvalidValue;
  }
}

cudaError_t MemPools::access(cudaMemPool_t pool, const cudaMemLocation &where,
                             cudaMemAccessFlags *flags) {
  std::lock_guard<std::mutex> lock(mu_);
  Pool *p = poolLocked(pool);
  if (!p || !flags)
    return cudaErrorInvalidValue;
  if (enumNumber(where.type) != cudaMemLocationTypeDevice) {
    *flags = cudaMemAccessFlagsProtNone; // the host never reaches it here
    return cudaSuccess;
  }
  auto it = p->peers.find(where.id);
  *flags = where.id == p->device  ? cudaMemAccessFlagsProtReadWrite
           : it != p->peers.end() ? it->second
                                  : cudaMemAccessFlagsProtNone;
  return cudaSuccess;
}

// Another device's access is peer access to the pool's device (the
// runtime's, which then reaches all of that device's memory: more than
// the pool, never less). Taking access away is recorded; the peer
// mapping stays for the rest of the device's memory.
cudaError_t MemPools::setAccess(cudaMemPool_t pool,
                                const cudaMemAccessDesc &desc) {
  int owner = 0;
  if (cudaError_t err = device(pool, &owner))
    return err;
  int count = 0;
  if (cudaError_t err = deviceCount(&count))
    return err;
  int peer = desc.location.id, flags = enumNumber(desc.flags);
  if (enumNumber(desc.location.type) != cudaMemLocationTypeDevice || peer < 0 ||
      peer >= count)
    return cudaErrorInvalidDevice;
  if (flags != cudaMemAccessFlagsProtNone &&
      flags != cudaMemAccessFlagsProtRead &&
      flags != cudaMemAccessFlagsProtReadWrite)
    return cudaErrorInvalidValue;
  if (peer == owner) // the pool's own device always reads and writes
    return flags == cudaMemAccessFlagsProtReadWrite ? cudaSuccess
                                                    : cudaErrorInvalidValue;
  if (flags != cudaMemAccessFlagsProtNone) {
    int canAccess = 0;
    if (cudaError_t err = runtime().canAccessPeer(&canAccess, peer, owner))
      return err;
    if (!canAccess)
      return cudaErrorInvalidDevice;
    int before = 0;
    runtime().getDevice(&before);
    runtime().setDevice(peer);
    cudaError_t err = runtime().setPeerAccess(owner, true);
    runtime().setDevice(before);
    if (err && err != cudaErrorPeerAccessAlreadyEnabled)
      return err;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (Pool *p = poolLocked(pool))
    p->peers[peer] = desc.flags;
  return cudaSuccess;
}

void MemPools::allocated(cudaMemPool_t pool, const void *ptr, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  Pool *p = poolLocked(pool);
  if (!p)
    return;
  allocations_[ptr] = {p, size};
  p->used += size;
  p->usedHigh = std::max(p->usedHigh, p->used);
}

void MemPools::freed(const void *ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocations_.find(ptr);
  if (it == allocations_.end())
    return;
  if (Pool *p = it->second.first)
    p->used -= it->second.second;
  allocations_.erase(it);
}

} // namespace rc::rt
