// Stream-ordered memory pools (api/mem_pools.h): each device's default
// pool and pools the program creates, the pool cudaMallocAsync takes from,
// attributes and other devices' access. Exported and imported pools (IPC)
// are refused by their generated stubs (docs/api-coverage.md).
#include "api/global.h"
#include "api/mem_pools.h"
#include "core/enum_number.h"

using rc::rt::MemPools;
using rc::rt::record;
using rc::rt::runtime;

namespace {

// An allocation from `pool`, made on the pool's device.
cudaError_t allocateFrom(cudaMemPool_t pool, void **ptr, size_t size,
                         cudaStream_t stream) {
  int owner = 0, current = 0;
  if (cudaError_t err = MemPools::instance().device(pool, &owner))
    return err;
  runtime().getDevice(&current);
  if (owner != current)
    runtime().setDevice(owner);
  cudaError_t err = runtime().mallocAsync(ptr, size, stream);
  if (owner != current)
    runtime().setDevice(current);
  if (err == cudaSuccess)
    MemPools::instance().allocated(pool, *ptr, size);
  return err;
}

} // namespace

extern "C" {

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
  return record(MemPools::instance().defaultPool(device, pool));
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) {
  return record(MemPools::instance().currentPool(device, pool));
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  return record(MemPools::instance().setCurrentPool(device, pool));
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool,
                              const cudaMemPoolProps *props) {
  return record(MemPools::instance().create(props, pool));
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  return record(MemPools::instance().destroy(pool));
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr,
                                    void *value) {
  return record(
      MemPools::instance().setAttribute(pool, rc::rt::enumNumber(attr), value));
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr,
                                    void *value) {
  return record(
      MemPools::instance().getAttribute(pool, rc::rt::enumNumber(attr), value));
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool,
                                 const cudaMemAccessDesc *descs, size_t count) {
  if (count && !descs)
    return record(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i)
    if (cudaError_t err = MemPools::instance().setAccess(pool, descs[i]))
      return record(err);
  return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *flags, cudaMemPool_t pool,
                                 cudaMemLocation *location) {
  if (!location)
    return record(cudaErrorInvalidValue);
  return record(MemPools::instance().access(pool, *location, flags));
}

// Nothing is pooled: every free returned its memory already.
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
  int device = 0;
  return record(MemPools::instance().device(pool, &device));
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream) {
  return record(allocateFrom(pool, ptr, size, stream));
}

// The current device's current pool (cudaDeviceSetMemPool).
cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream) {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  runtime().getDevice(&device);
  if (cudaError_t err = MemPools::instance().currentPool(device, &pool))
    return record(err);
  return record(allocateFrom(pool, ptr, size, stream));
}

cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream) {
  cudaError_t err = runtime().freeAsync(ptr, stream);
  if (err == cudaSuccess)
    MemPools::instance().freed(ptr);
  return record(err);
}

} // extern "C"
