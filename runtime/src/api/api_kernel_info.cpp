// What the build recorded about a kernel, answered locally: its name (as
// clang registered its stub), its parameters' layout (the manifest), the
// handles CUDA 12 gives a kernel (cudaGetFuncBySymbol, cudaGetKernel: the
// stub itself, which every call taking a kernel accepts, librc_cuda's
// included), and how much dynamic shared memory lets a number of its
// blocks share a multiprocessor (the occupancy calculator).
#include "api/global.h"
#include "core/enum_number.h"
#include "manifests/startup_registry.h"

#include <map>
#include <mutex>
#include <string>

using rc::rt::record;
using rc::rt::runtime;

namespace {

// The manifests' record of the kernel behind `stub`.
cudaError_t kernelOf(const void *stub, const rc::manifest::Kernel **kernel) {
  uint64_t id = 0, moduleHash = 0;
  if (cudaError_t err = runtime().kernels().stubToId(stub, &id))
    return err;
  return runtime().kernels().kernelRecord(id, kernel, &moduleHash);
}

// A kernel handle of the runtime API names the kernel by its stub.
template <class Handle> cudaError_t handleOf(Handle *out, const void *stub) {
  if (!out || !stub)
    return cudaErrorInvalidValue;
  uint64_t id = 0;
  if (cudaError_t err = runtime().kernels().stubToId(stub, &id))
    return err;
  *out = reinterpret_cast<Handle>(const_cast<void *>(stub));
  return cudaSuccess;
}

} // namespace

extern "C" {

// For librc_cuda, of a kernel by its ID (a module's kernel: the function
// handle cuModuleGetFunction made): its attributes, its occupancy, and
// cudaOccupancyAvailableDynamicSMemPerBlock's answer, all local.
__attribute__((visibility("default"))) cudaError_t
__rc_function_attributes(uint64_t id, cudaFuncAttributes *attr) {
  return runtime().kernels().funcGetAttributes(attr, id);
}

__attribute__((visibility("default"))) cudaError_t
__rc_function_occupancy(int *blocks, uint64_t id, int blockSize,
                        size_t dynamicSmem, unsigned flags) {
  return runtime().kernels().occupancyMaxActiveBlocks(blocks, id, blockSize,
                                                      dynamicSmem, flags);
}

__attribute__((visibility("default"))) cudaError_t __rc_function_available_smem(
    size_t *dynamicSmemSize, uint64_t id, int numBlocks, int blockSize) {
  if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
    return cudaErrorInvalidValue;
  cudaFuncAttributes attr;
  if (cudaError_t err = runtime().kernels().funcGetAttributes(&attr, id))
    return err;
  auto fits = [&](size_t bytes, bool *ok) {
    int blocks = 0;
    cudaError_t err = runtime().kernels().occupancyMaxActiveBlocks(
        &blocks, id, blockSize, bytes, 0);
    *ok = blocks >= numBlocks;
    return err;
  };
  bool ok = false;
  if (cudaError_t err = fits(0, &ok))
    return err;
  size_t low = 0, high = size_t(attr.maxDynamicSharedSizeBytes);
  if (!ok)
    high = 0; // not even without dynamic shared memory
  while (low < high) {
    size_t mid = low + (high - low + 1) / 2;
    if (cudaError_t err = fits(mid, &ok))
      return err;
    if (ok)
      low = mid;
    else
      high = mid - 1;
  }
  *dynamicSmemSize = low;
  return cudaSuccess;
}

// For librc_cuda: whether a CUfunction is a kernel's stub (what
// cudaGetFuncBySymbol gives) rather than a module's kernel.
__attribute__((visibility("default"))) int __rc_kernel_stub(const void *f) {
  uint64_t moduleHash = 0;
  std::string name;
  return rc::rt::StartupRegistry::instance().function(f, &moduleHash, &name);
}

// The device-side (mangled) name the stub was registered with; the string
// lives as long as the process, as CUDA's does.
cudaError_t cudaFuncGetName(const char **name, const void *func) {
  if (!name || !func)
    return record(cudaErrorInvalidValue);
  static std::mutex mu;
  static auto *names = new std::map<const void *, std::string>;
  uint64_t moduleHash = 0;
  std::string found;
  if (!rc::rt::StartupRegistry::instance().function(func, &moduleHash, &found))
    return record(cudaErrorInvalidDeviceFunction);
  std::lock_guard<std::mutex> lock(mu);
  *name = names->emplace(func, found).first->second.c_str();
  return cudaSuccess;
}

cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex,
                                 size_t *paramOffset, size_t *paramSize) {
  if (!func || !paramOffset || !paramSize)
    return record(cudaErrorInvalidValue);
  const rc::manifest::Kernel *k = nullptr;
  if (cudaError_t err = kernelOf(func, &k))
    return record(err);
  if (!k->params() || paramIndex >= k->params()->size())
    return record(cudaErrorInvalidValue);
  const rc::manifest::Param *p = k->params()->Get(uint32_t(paramIndex));
  *paramOffset = p->offset();
  *paramSize = p->size();
  return cudaSuccess;
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr,
                                const void *symbolPtr) {
  return record(handleOf(functionPtr, symbolPtr));
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
  return record(handleOf(kernelPtr, entryFuncAddr));
}

// Shared memory banks are four bytes wide on every GPU since Volta, where
// CUDA accepts the setting and ignores it.
cudaError_t cudaFuncSetSharedMemConfig(const void *func,
                                       cudaSharedMemConfig config) {
  int number = rc::rt::enumNumber(config);
  if (number < cudaSharedMemBankSizeDefault ||
      number > cudaSharedMemBankSizeEightByte)
    return record(cudaErrorInvalidValue);
  uint64_t id = 0;
  return record(runtime().kernels().stubToId(func, &id));
}

// The most dynamic shared memory a block may take with `numBlocks` blocks
// of `blockSize` threads on one multiprocessor: the largest amount the
// occupancy calculator still fits them with (it grows monotonically
// scarcer, so a binary search finds it).
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                      const void *func,
                                                      int numBlocks,
                                                      int blockSize) {
  uint64_t id = 0;
  if (cudaError_t err = runtime().kernels().stubToId(func, &id))
    return record(err);
  return record(
      __rc_function_available_smem(dynamicSmemSize, id, numBlocks, blockSize));
}

} // extern "C"
