// librc_cuda.so: driver-API modules the build never saw (docs/driver-api.md)
// and the context, memory and stream calls programs that load them make.
// An image (cubin, fatbin or PTX, from a file, from NVRTC, or embedded)
// goes to rc-server once per cuModuleLoad*; kernels are launched by
// cuLaunchKernel with their arguments packed by the layout rc-server reads
// from the image. Contexts are the runtime's: one per device and session
// on rc-server, so a CUcontext here names a device.
#include "core/handle.h"
#include "cu_context.h"
#include "cu_module_names.h"
#include "cu_result.h"
#include "rc/fatbin.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

extern "C" {
cudaError_t __rc_module_load(uint64_t *module, const void *image, size_t size);
cudaError_t __rc_module_unload(uint64_t module);
cudaError_t __rc_module_function(uint64_t *function, uint64_t module,
                                 const char *name);
cudaError_t __rc_launch_function(uint64_t function, dim3 grid, dim3 block,
                                 unsigned sharedMem, cudaStream_t stream,
                                 void **params, void **extra);
int __rc_kernel_stub(const void *f);
int __rc_report_unsupported(const char *call, const char *library);
}

using rc::cu::contextOf;
using rc::cu::fromRuntime;
using rc::cu::ptr;

namespace {

// How many bytes the image at `p` spans: an ELF cubin up to its last
// header table, a fatbin by its header, PTX up to and with its NUL.
size_t imageSize(const void *p) {
  const auto *bytes = static_cast<const uint8_t *>(p);
  if (std::memcmp(bytes, ELFMAG, SELFMAG) == 0 &&
      bytes[EI_CLASS] == ELFCLASS64) {
    Elf64_Ehdr h;
    std::memcpy(&h, bytes, sizeof h);
    return std::max<size_t>(
        {sizeof h, size_t(h.e_shoff) + size_t(h.e_shnum) * h.e_shentsize,
         size_t(h.e_phoff) + size_t(h.e_phnum) * h.e_phentsize});
  }
  if (size_t n = rc::fatbinSize(bytes, SIZE_MAX))
    return n;
  return std::strlen(static_cast<const char *>(p)) + 1;
}

CUresult load(CUmodule *module, const void *image) {
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t id = 0;
  cudaError_t e = __rc_module_load(&id, image, imageSize(image));
  if (e == cudaSuccess)
    *module = rc::rt::toHandle<CUmodule>(id);
  return fromRuntime(e);
}

CUresult copy(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
              CUstream stream, bool async) {
  return fromRuntime(
      async ? cudaMemcpyAsync(dst, src, n, kind, cudaStream_t(stream))
            : cudaMemcpy(dst, src, n, kind));
}

} // namespace

namespace rc::cu {
namespace {
std::mutex namesMu;
std::map<CUfunction, std::string> &names() {
  static auto *kept = new std::map<CUfunction, std::string>; // never freed
  return *kept;
}
} // namespace

void rememberFunctionName(CUfunction f, const char *name) {
  std::lock_guard<std::mutex> lock(namesMu);
  names()[f] = name;
}

const char *moduleFunctionName(CUfunction f) {
  std::lock_guard<std::mutex> lock(namesMu);
  auto it = names().find(f);
  return it == names().end() ? nullptr : it->second.c_str();
}
} // namespace rc::cu

extern "C" {

// ---- modules ----------------------------------------------------------------

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  return load(module, image);
}

// JIT options tune or report the compilation, which happens on rc-server:
// accepted, and errors come back as the call's result and message. The
// log buffers a caller passes come back empty (as a successful JIT's info
// log may), not with whatever the buffer held (matrixMulDynlinkJIT prints
// its info log).
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned numOptions, CUjit_option *options,
                            void **values) {
  CUresult r = load(module, image);
  // A buffer is written only within the size given beside it.
  auto sizeOf = [&](CUjit_option sizeOption) {
    for (unsigned i = 0; i < numOptions; ++i)
      if (options[i] == sizeOption)
        return uintptr_t(values[i]);
    return uintptr_t(0);
  };
  for (unsigned i = 0; options && values && i < numOptions; ++i) {
    CUjit_option size = options[i] == CU_JIT_INFO_LOG_BUFFER
                            ? CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
                        : options[i] == CU_JIT_ERROR_LOG_BUFFER
                            ? CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
                            : CU_JIT_NUM_OPTIONS;
    if (size != CU_JIT_NUM_OPTIONS && values[i] && sizeOf(size) > 0)
      *static_cast<char *>(values[i]) = '\0';
  }
  for (unsigned i = 0; options && values && i < numOptions; ++i)
    if (options[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ||
        options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      values[i] = nullptr; // bytes written: none
  return r;
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
  return load(module, fatCubin);
}

CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  if (!fname)
    return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(fname, std::ios::binary);
  if (!in)
    return CUDA_ERROR_FILE_NOT_FOUND;
  std::vector<char> image((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  image.push_back('\0'); // PTX text ends at a NUL
  uint64_t id = 0;
  cudaError_t e = __rc_module_load(&id, image.data(), image.size());
  if (e == cudaSuccess)
    *module = rc::rt::toHandle<CUmodule>(id);
  return fromRuntime(e);
}

CUresult cuModuleUnload(CUmodule module) {
  return fromRuntime(__rc_module_unload(rc::rt::handleId(module)));
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  if (!function || !name)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t id = 0;
  cudaError_t e = __rc_module_function(&id, rc::rt::handleId(module), name);
  if (e == cudaSuccess) {
    *function = rc::rt::toHandle<CUfunction>(id);
    rc::cu::rememberFunctionName(*function, name);
  }
  return e == cudaErrorSymbolNotFound ? CUDA_ERROR_NOT_FOUND : fromRuntime(e);
}

// A build's kernel (cudaGetFuncBySymbol's CUfunction is its stub) is the
// runtime's launch; its arguments come as `params` only.
CUresult cuLaunchKernel(CUfunction f, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedMem, CUstream stream,
                        void **params, void **extra) {
  if (f && __rc_kernel_stub(f)) {
    if (extra) {
      __rc_report_unsupported("cuLaunchKernel of a build's kernel with its "
                              "arguments in 'extra'",
                              "driver library");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    return fromRuntime(cudaLaunchKernel(f, dim3(gridX, gridY, gridZ),
                                        dim3(blockX, blockY, blockZ), params,
                                        sharedMem, cudaStream_t(stream)));
  }
  return fromRuntime(
      __rc_launch_function(rc::rt::handleId(f), dim3(gridX, gridY, gridZ),
                           dim3(blockX, blockY, blockZ), sharedMem,
                           cudaStream_t(stream), params, extra));
}

// ---- contexts: one per device, the runtime's
// ---------------------------------

CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned, CUdevice device) {
  if (!ctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaSetDevice(device))
    return fromRuntime(e);
  *ctx = contextOf(device);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device) {
  if (!ctx)
    return CUDA_ERROR_INVALID_VALUE;
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count))
    return fromRuntime(e);
  if (device < 0 || device >= count)
    return CUDA_ERROR_INVALID_DEVICE;
  *ctx = contextOf(device);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxDestroy_v2(CUcontext) {
  return fromRuntime(cudaDeviceSynchronize());
}
CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (!ctx)
    return CUDA_SUCCESS; // no context current: nothing to switch to
  return fromRuntime(cudaSetDevice(int(rc::rt::handleId(ctx)) - 1));
}
CUresult cuCtxPushCurrent_v2(CUcontext ctx) { return cuCtxSetCurrent(ctx); }
CUresult cuCtxGetCurrent(CUcontext *ctx) {
  if (!ctx)
    return CUDA_ERROR_INVALID_VALUE;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device))
    return fromRuntime(e);
  *ctx = contextOf(device);
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent_v2(CUcontext *ctx) {
  return ctx ? cuCtxGetCurrent(ctx) : CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) { return fromRuntime(cudaDeviceSynchronize()); }

// ---- memory and streams: the runtime's
// ----------------------------------------

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  void *d = nullptr;
  cudaError_t e = cudaMalloc(&d, size);
  *p = CUdeviceptr(uintptr_t(d));
  return fromRuntime(e);
}
CUresult cuMemFree_v2(CUdeviceptr p) { return fromRuntime(cudaFree(ptr(p))); }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  return copy(ptr(dst), src, n, cudaMemcpyHostToDevice, nullptr, false);
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToHost, nullptr, false);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, nullptr, false);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                              CUstream s) {
  return copy(ptr(dst), src, n, cudaMemcpyHostToDevice, s, true);
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n,
                              CUstream s) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToHost, s, true);
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t n) {
  return fromRuntime(cudaMemset(ptr(dst), value, n));
}
CUresult cuStreamCreate(CUstream *stream, unsigned flags) {
  return fromRuntime(cudaStreamCreateWithFlags(
      reinterpret_cast<cudaStream_t *>(stream), flags));
}
CUresult cuStreamDestroy_v2(CUstream stream) {
  return fromRuntime(cudaStreamDestroy(cudaStream_t(stream)));
}
CUresult cuStreamSynchronize(CUstream stream) {
  return fromRuntime(cudaStreamSynchronize(cudaStream_t(stream)));
}

} // extern "C"
