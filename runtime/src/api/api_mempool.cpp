// Each device's default memory pool, as far as programs see it: the
// handle, its settable attributes and allocation from it. Allocations are
// not pooled (cudaMallocAsync is an ordinary allocation and every free
// returns the memory at once, runtime_memory.cpp), so the release threshold
// and reuse flags are recorded and read back but change nothing, and
// trimming has nothing to do. Created, shared and exported pools are not
// served (the generated stubs name them).
#include "api/global.h"
#include "api/unsupported.h"

#include <cstdint>
#include <mutex>

using rc::rt::record;
using rc::rt::runtime;

namespace {

struct PoolState {
  uint64_t releaseThreshold = 0;
  int reuseFollowEvents = 1, reuseOpportunistic = 1, reuseInternal = 1;
};

constexpr int kMaxDevices = 64;
PoolState pools[kMaxDevices];
std::mutex poolsMu;

PoolState *poolOf(cudaMemPool_t pool) {
  auto *p = reinterpret_cast<PoolState *>(pool);
  return p >= pools && p < pools + kMaxDevices ? p : nullptr;
}

cudaError_t defaultPool(cudaMemPool_t *pool, int device) {
  int count = 0;
  if (!pool)
    return cudaErrorInvalidValue;
  if (cudaError_t err = runtime().deviceCount(&count))
    return err;
  if (device < 0 || device >= count || device >= kMaxDevices)
    return cudaErrorInvalidDevice;
  *pool = reinterpret_cast<cudaMemPool_t>(&pools[device]);
  return cudaSuccess;
}

// This client's device memory in use: without pooling, what is reserved
// is what is used.
uint64_t bytesInUse() {
  size_t freeBytes = 0, total = 0;
  if (runtime().memGetInfo(&freeBytes, &total) != cudaSuccess)
    return 0;
  return total - freeBytes;
}

} // namespace

extern "C" {

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
  return record(defaultPool(pool, device));
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) {
  return record(defaultPool(pool, device));
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  cudaMemPool_t own = nullptr;
  if (cudaError_t err = defaultPool(&own, device))
    return record(err);
  if (pool != own)
    return record(rc::rt::reportUnsupported(
        "cudaDeviceSetMemPool with a pool other than the default"));
  return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr,
                                    void *value) {
  PoolState *p = poolOf(pool);
  if (!p || !value)
    return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(poolsMu);
  switch (attr) {
  case cudaMemPoolAttrReleaseThreshold:
    p->releaseThreshold = *static_cast<uint64_t *>(value);
    return cudaSuccess;
  case cudaMemPoolReuseFollowEventDependencies:
    p->reuseFollowEvents = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    p->reuseOpportunistic = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    p->reuseInternal = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh: // may only be reset, to 0
    return record(*static_cast<uint64_t *>(value) == 0 ? cudaSuccess
                                                       : cudaErrorInvalidValue);
  default:
    return record(cudaErrorInvalidValue);
  }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr,
                                    void *value) {
  PoolState *p = poolOf(pool);
  if (!p || !value)
    return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(poolsMu);
  switch (attr) {
  case cudaMemPoolAttrReleaseThreshold:
    *static_cast<uint64_t *>(value) = p->releaseThreshold;
    return cudaSuccess;
  case cudaMemPoolReuseFollowEventDependencies:
    *static_cast<int *>(value) = p->reuseFollowEvents;
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    *static_cast<int *>(value) = p->reuseOpportunistic;
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    *static_cast<int *>(value) = p->reuseInternal;
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemCurrent:
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemCurrent:
  case cudaMemPoolAttrUsedMemHigh:
    *static_cast<uint64_t *>(value) = bytesInUse();
    return cudaSuccess;
  default:
    return record(cudaErrorInvalidValue);
  }
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
  return record(poolOf(pool) ? cudaSuccess : cudaErrorInvalidValue);
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream) {
  if (!poolOf(pool))
    return record(cudaErrorInvalidValue);
  return record(runtime().mallocAsync(ptr, size, stream));
}

} // extern "C"
