#include "backend/cuda/module_cuda.h"

#include "rc/server/errors.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace rc::server {

namespace {

// A loaded image and the JIT's error log. The driver may compile a
// library's PTX again whenever another context first uses it, writing the
// log with the options given at load: the buffer lives as long as the
// library.
struct LoadedLibrary {
  CUlibrary library = nullptr;
  char log[8192] = {};
};

CUlibrary libraryOf(NativeHandle module) {
  return reinterpret_cast<LoadedLibrary *>(module)->library;
}

} // namespace

OpStatus loadCudaModule(const CudaDriver &driver,
                        const std::vector<uint8_t> &image,
                        NativeHandle *module) {
  // The driver reads images with aligned loads, and PTX must end in a NUL:
  // an 8-byte-aligned copy with a zero after it serves both.
  std::vector<uint64_t> aligned(image.size() / 8 + 1, 0);
  std::memcpy(aligned.data(), image.data(), image.size());
  auto loaded = std::make_unique<LoadedLibrary>();
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {loaded->log,
                    reinterpret_cast<void *>(uintptr_t(sizeof loaded->log))};
  CUresult r =
      driver.cuLibraryLoadData(&loaded->library, aligned.data(), options,
                               values, 2, nullptr, nullptr, 0);
  // Loading is lazy; loading into the session's context now makes a JIT
  // error cuModuleLoadData's, as CUDA reports it.
  CUmodule inContext = nullptr;
  if (r == CUDA_SUCCESS && (r = driver.cuLibraryGetModule(
                                &inContext, loaded->library)) != CUDA_SUCCESS)
    driver.cuLibraryUnload(loaded->library);
  if (r != CUDA_SUCCESS) {
    OpStatus st = driver.status(r);
    st.detail = "cannot load the module: " + st.detail;
    if (loaded->log[0])
      st.detail +=
          "; the JIT said: " +
          std::string(loaded->log, strnlen(loaded->log, sizeof loaded->log));
    return st;
  }
  *module = reinterpret_cast<NativeHandle>(loaded.release());
  return OpStatus::success();
}

void unloadCudaModule(const CudaDriver &driver, NativeHandle module) {
  auto *loaded = reinterpret_cast<LoadedLibrary *>(module);
  driver.cuLibraryUnload(loaded->library);
  delete loaded;
}

OpStatus cudaModuleKernel(const CudaDriver &driver, NativeHandle module,
                          const std::string &name, KernelInfo *out) {
  CUkernel kernel = nullptr;
  CUresult r =
      driver.cuLibraryGetKernel(&kernel, libraryOf(module), name.c_str());
  if (r != CUDA_SUCCESS)
    return OpStatus::fail(kErrSymbolNotFound,
                          "no kernel named '" + name +
                              "' in the module: " + driver.describe(r));
  KernelInfo k;
  k.name = k.demangled = name;
  k.native = kernel;
  // Parameters until the driver says there is no such index.
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    if (driver.cuKernelGetParamInfo(kernel, i, &offset, &size) != CUDA_SUCCESS)
      break;
    ParamInfo p;
    p.name = "parameter " + std::to_string(i);
    p.offset = uint32_t(offset);
    p.size = uint32_t(size);
    k.argsSize = std::max<uint32_t>(k.argsSize, p.offset + p.size);
    k.params.push_back(std::move(p));
  }
  *out = std::move(k);
  return OpStatus::success();
}

} // namespace rc::server
