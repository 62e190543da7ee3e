// Exported memory and symbol calls.
#include "api/global.h"
#include "api/managed_advice.h"
#include "api/mem_pools.h"
#include "core/unsupported.h"

#include <map>
#include <mutex>

using rc::rt::ManagedAdvice;
using rc::rt::record;
using rc::rt::runtime;

namespace {

// The flags each cudaHostAlloc block was made with (cudaHostGetFlags).
struct HostAllocFlags {
  std::mutex mu;
  std::map<uintptr_t, std::pair<size_t, unsigned>> blocks; // start -> size
};
HostAllocFlags &hostAllocFlags() {
  static auto *kept = new HostAllocFlags; // never destroyed
  return *kept;
}

cudaError_t hostAlloc(void **ptr, size_t size, unsigned flags) {
  cudaError_t err = runtime().mallocHost(ptr, size);
  if (err == cudaSuccess) {
    HostAllocFlags &f = hostAllocFlags();
    std::lock_guard<std::mutex> lock(f.mu);
    f.blocks[uintptr_t(*ptr)] = {size, flags};
  }
  return err;
}

cudaError_t advise(const void *p, size_t count, cudaMemoryAdvise advice,
                   int device) {
  cudaError_t err = runtime().memAdvise(p, count, advice, device);
  if (err == cudaSuccess)
    ManagedAdvice::instance().advise(uintptr_t(p), count, advice, device);
  return err;
}

} // namespace

extern "C" {

cudaError_t cudaMalloc(void **ptr, size_t size) {
  return record(runtime().malloc(ptr, size));
}

// Memory of a pool counts as used there until freed, by either call
// (api/mem_pools.h; cudaMallocAsync and cudaFreeAsync: api_mempool.cpp).
cudaError_t cudaFree(void *ptr) {
  cudaError_t err = runtime().free(ptr);
  if (err == cudaSuccess)
    rc::rt::MemPools::instance().freed(ptr);
  return record(err);
}

// A new allocation carries no advice, whatever an earlier one at its
// address was given.
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags) {
  cudaError_t err = runtime().mallocManaged(ptr, size, flags);
  if (err == cudaSuccess)
    ManagedAdvice::instance().forget(uintptr_t(*ptr), size);
  return record(err);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                          cudaMemoryAdvise advice, int device) {
  return record(advise(devPtr, count, advice, device));
}

cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count,
                             cudaMemoryAdvise advice,
                             cudaMemLocation location) {
  int device = location.type == cudaMemLocationTypeDevice ? location.id
               : location.type == cudaMemLocationTypeHost ? cudaCpuDeviceId
                                                          : -2;
  return record(advise(devPtr, count, advice, device));
}

// The answer is the same for every destination (Runtime::memPrefetch).
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int,
                                 cudaStream_t stream) {
  return record(runtime().memPrefetch(devPtr, count, stream, false));
}

cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count,
                                    cudaMemLocation, unsigned int,
                                    cudaStream_t stream) {
  return record(runtime().memPrefetch(devPtr, count, stream, false));
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr,
                                     size_t length, unsigned int flags) {
  return record(
      runtime().streamAttachMemory(stream, devPtr, length, flags, false));
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  return record(hostAlloc(ptr, size, cudaHostAllocDefault));
}

// Portable and write-combined memory is pinned memory to the runtime (one
// process, no device reads it directly); mapped memory would need the GPU
// to reach this host: refused by name.
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) {
  if (flags & ~unsigned(cudaHostAllocPortable | cudaHostAllocMapped |
                        cudaHostAllocWriteCombined))
    return record(cudaErrorInvalidValue);
  if (flags & cudaHostAllocMapped)
    return record(
        rc::rt::reportUnsupported("cudaHostAlloc(cudaHostAllocMapped)"));
  return record(hostAlloc(ptr, size, flags));
}

cudaError_t cudaFreeHost(void *ptr) {
  cudaError_t err = runtime().freeHost(ptr);
  if (err == cudaSuccess) {
    HostAllocFlags &f = hostAllocFlags();
    std::lock_guard<std::mutex> lock(f.mu);
    f.blocks.erase(uintptr_t(ptr));
  }
  return record(err);
}

// For librc_cuda (cuMemGetAddressRange, cuPointerGetAttribute): the
// device allocation or cudaHostAlloc block `p` lies in.
__attribute__((visibility("default"))) cudaError_t
__rc_allocation_range(const void *p, void **base, size_t *size) {
  if (runtime().allocationRange(p, base, size) == cudaSuccess)
    return cudaSuccess;
  HostAllocFlags &f = hostAllocFlags();
  std::lock_guard<std::mutex> lock(f.mu);
  auto it = f.blocks.upper_bound(uintptr_t(p));
  if (it == f.blocks.begin())
    return cudaErrorInvalidValue;
  --it;
  if (uintptr_t(p) - it->first >= it->second.first)
    return cudaErrorInvalidValue;
  *base = reinterpret_cast<void *>(it->first);
  *size = it->second.first;
  return cudaSuccess;
}

// The flags of the cudaHostAlloc (or cudaMallocHost) block `host` lies in.
cudaError_t cudaHostGetFlags(unsigned int *flags, void *host) {
  if (!flags)
    return record(cudaErrorInvalidValue);
  HostAllocFlags &f = hostAllocFlags();
  std::lock_guard<std::mutex> lock(f.mu);
  auto it = f.blocks.upper_bound(uintptr_t(host));
  if (it == f.blocks.begin())
    return record(cudaErrorInvalidValue);
  --it;
  if (uintptr_t(host) - it->first >= it->second.first)
    return record(cudaErrorInvalidValue);
  *flags = it->second.second;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       cudaMemcpyKind kind) {
  return record(runtime().memcpy(dst, src, count, kind, nullptr, false, false));
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream) {
  return record(runtime().memcpy(dst, src, count, kind, stream, true, false));
}

cudaError_t cudaMemset(void *dst, int value, size_t count) {
  return record(runtime().memset(dst, value, count, nullptr, false));
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t count,
                            cudaStream_t stream) {
  return record(runtime().memset(dst, value, count, stream, false));
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr,
                                     const void *ptr) {
  return record(runtime().pointerAttributes(attr, ptr));
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src,
                               size_t count, size_t offset,
                               cudaMemcpyKind kind) {
  return record(runtime().memcpyToSymbol(symbol, src, count, offset, kind,
                                         nullptr, false, false));
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                 size_t offset, cudaMemcpyKind kind) {
  return record(runtime().memcpyFromSymbol(dst, symbol, count, offset, kind,
                                           nullptr, false, false));
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src,
                                    size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream) {
  return record(runtime().memcpyToSymbol(symbol, src, count, offset, kind,
                                         stream, true, false));
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol,
                                      size_t count, size_t offset,
                                      cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  return record(runtime().memcpyFromSymbol(dst, symbol, count, offset, kind,
                                           stream, true, false));
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  return record(runtime().symbolAddress(devPtr, symbol));
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  return record(runtime().symbolSize(size, symbol));
}

} // extern "C"
