// Exported function-attribute and occupancy calls: the stub pointer names the
// kernel (registration table + manifest); the answers are local.
#include "api/global.h"
#include "core/enum_number.h"

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  uint64_t id;
  if (cudaError_t err = runtime().kernels().stubToId(func, &id))
    return record(err);
  return record(runtime().kernels().funcGetAttributes(attr, id));
}

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr,
                                 int value) {
  uint64_t id;
  if (cudaError_t err = runtime().kernels().stubToId(func, &id))
    return record(err);
  return record(runtime().kernels().funcSetAttribute(id, attr, value));
}

cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config) {
  uint64_t id;
  if (cudaError_t err = runtime().kernels().stubToId(func, &id))
    return record(err);
  // Read as a number: a program may pass one that is no cudaFuncCache.
  return record(
      runtime().kernels().funcSetCacheConfig(id, rc::rt::enumNumber(config)));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
    unsigned int flags) {
  uint64_t id;
  if (cudaError_t err = runtime().kernels().stubToId(func, &id))
    return record(err);
  return record(runtime().kernels().occupancyMaxActiveBlocks(
      numBlocks, id, blockSize, dynamicSMemSize, flags));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      numBlocks, func, blockSize, dynamicSMemSize, cudaOccupancyDefault);
}

} // extern "C"
