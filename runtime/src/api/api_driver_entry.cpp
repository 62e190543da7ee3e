// cudaGetDriverEntryPoint[ByVersion]: driver functions for programs built on
// the runtime (frameworks that get cuMemCreate and friends this way, and
// programs that dlopen libcudart). The driver library beside this one
// answers, by cuGetProcAddress's rules (docs/driver-api.md).
#include "api/global.h"
#include "core/unsupported.h"

#include <cuda.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using GetProc = CUresult (*)(const char *, void **, int, cuuint64_t,
                             CUdriverProcAddressQueryResult *);

// librc_cuda.so from this library's own folder: it links this one, so it
// is not loaded when the program only dlopened the runtime. The folder of
// the file itself first: the program may have loaded it through a link
// under CUDA's name in another folder (rc-run's, a bundle's), which need
// not hold librc_cuda.so; then the folder it was loaded from.
GetProc driverResolver() {
  static GetProc resolver = [] {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&driverResolver), &info) ||
        !info.dli_fname)
      return GetProc(nullptr);
    std::vector<std::string> folders;
    if (char *real = realpath(info.dli_fname, nullptr)) {
      folders.push_back(real);
      std::free(real);
    }
    folders.push_back(info.dli_fname);
    for (std::string path : folders) {
      path = path.substr(0, path.find_last_of('/') + 1) + "librc_cuda.so";
      if (void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
        return reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
    }
    return GetProc(nullptr);
  }();
  return resolver;
}

cudaError_t entryPoint(const char *symbol, void **funcPtr, int version,
                       unsigned long long flags,
                       cudaDriverEntryPointQueryResult *status) {
  GetProc resolve = driverResolver();
  if (!resolve)
    return rc::rt::record(
        rc::rt::reportUnsupported("cudaGetDriverEntryPoint (librc_cuda.so is "
                                  "not beside librc_cudart.so)"));
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  // Same numbering: cudaEnableDefault / LegacyStream / PerThreadDefaultStream
  // and the three query results.
  CUresult r = resolve(symbol, funcPtr, version, flags, &found);
  if (status)
    *status = cudaDriverEntryPointQueryResult(int(found));
  return rc::rt::record(r == CUDA_SUCCESS ? cudaSuccess
                                          : cudaErrorInvalidValue);
}

} // namespace

extern "C" {

// The runtime's own version chooses the ABI, as NVIDIA's runtime does.
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                    unsigned long long flags,
                                    cudaDriverEntryPointQueryResult *status) {
  return entryPoint(symbol, funcPtr, CUDART_VERSION, flags, status);
}

// CUDA 12.5's: the caller chooses (CUDA 13 programs use this one).
cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags, cudaDriverEntryPointQueryResult *status) {
  return entryPoint(symbol, funcPtr, int(cudaVersion), flags, status);
}

} // extern "C"
