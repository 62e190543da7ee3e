// Each device's default memory pool, as far as programs see it: the
// handle, its settable attributes and allocation from it. Allocations are
// not pooled (cudaMallocAsync is an ordinary allocation and every free
// returns the memory at once, runtime_memory.cpp), so the release threshold
// and reuse flags are recorded and read back but change nothing, and
// trimming has nothing to do. Created, shared and exported pools are not
// served (the generated stubs name them).
#include "api/global.h"
#include "api/unsupported.h"
#include "core/enum_number.h"

#include <cstdint>
#include <cstring>
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
  auto addr = reinterpret_cast<uintptr_t>(pool),
       first = reinterpret_cast<uintptr_t>(&pools[0]);
  if (addr < first || addr >= first + sizeof pools ||
      (addr - first) % sizeof(PoolState) != 0)
    return nullptr;
  return &pools[(addr - first) / sizeof(PoolState)];
}

// The field of a settable attribute and its size, or null. `attr` is read
// as a number: a program may pass one that is no cudaMemPoolAttr.
void *storedAttribute(PoolState &p, cudaMemPoolAttr attr, size_t *size) {
  int number = rc::rt::enumNumber(attr);
  *size = sizeof(int);
  switch (number) {
  case cudaMemPoolAttrReleaseThreshold:
    *size = sizeof p.releaseThreshold;
    return &p.releaseThreshold;
  case cudaMemPoolReuseFollowEventDependencies:
    return &p.reuseFollowEvents;
  case cudaMemPoolReuseAllowOpportunistic:
    return &p.reuseOpportunistic;
  case cudaMemPoolReuseAllowInternalDependencies:
    return &p.reuseInternal;
  default:
    return nullptr;
  }
}

// The used / reserved byte counts (current and high): without pooling,
// both are this client's device memory in use.
bool isUsageAttribute(cudaMemPoolAttr attr, bool *isHigh) {
  int number = rc::rt::enumNumber(attr);
  *isHigh = number == cudaMemPoolAttrReservedMemHigh ||
            number == cudaMemPoolAttrUsedMemHigh;
  return *isHigh || number == cudaMemPoolAttrReservedMemCurrent ||
         number == cudaMemPoolAttrUsedMemCurrent;
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
  size_t size;
  if (void *field = storedAttribute(*p, attr, &size)) {
    std::memcpy(field, value, size);
    return cudaSuccess;
  }
  bool isHigh; // a high-water mark may only be reset, to 0
  if (isUsageAttribute(attr, &isHigh) && isHigh &&
      *static_cast<uint64_t *>(value) == 0)
    return cudaSuccess;
  return record(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr,
                                    void *value) {
  PoolState *p = poolOf(pool);
  if (!p || !value)
    return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(poolsMu);
  size_t size;
  if (void *field = storedAttribute(*p, attr, &size)) {
    std::memcpy(value, field, size);
    return cudaSuccess;
  }
  bool isHigh;
  if (!isUsageAttribute(attr, &isHigh))
    return record(cudaErrorInvalidValue);
  *static_cast<uint64_t *>(value) = bytesInUse();
  return cudaSuccess;
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
