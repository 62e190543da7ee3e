// Exported memory and symbol calls.
#include "api/global.h"
#include "api/unsupported.h"

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t cudaMalloc(void **ptr, size_t size) {
  return record(runtime().malloc(ptr, size));
}

cudaError_t cudaFree(void *ptr) { return record(runtime().free(ptr)); }

cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream) {
  return record(runtime().mallocAsync(ptr, size, stream));
}

cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream) {
  return record(runtime().freeAsync(ptr, stream));
}

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags) {
  return record(runtime().mallocManaged(ptr, size, flags));
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                          cudaMemoryAdvise advice, int device) {
  return record(runtime().memAdvise(devPtr, count, advice, device));
}

cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count,
                             cudaMemoryAdvise advice,
                             cudaMemLocation location) {
  int device = location.type == cudaMemLocationTypeDevice ? location.id
               : location.type == cudaMemLocationTypeHost ? cudaCpuDeviceId
                                                          : -2;
  return record(runtime().memAdvise(devPtr, count, advice, device));
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
  return record(runtime().mallocHost(ptr, size));
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) {
  // Mapped memory would need the GPU to reach this host: refused by name.
  if (flags & cudaHostAllocMapped)
    return record(
        rc::rt::reportUnsupported("cudaHostAlloc(cudaHostAllocMapped)"));
  return record(runtime().mallocHost(ptr, size));
}

cudaError_t cudaFreeHost(void *ptr) { return record(runtime().freeHost(ptr)); }

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
