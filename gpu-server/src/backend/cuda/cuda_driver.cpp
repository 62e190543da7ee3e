#include "backend/cuda/cuda_driver.h"

#include "rc/server/errors.h"

#include <dlfcn.h>

namespace rc::server {

namespace {
// The exported resolvers: _v2 (CUDA >= 12.5 drivers) reports why a symbol
// is missing; the original one exists on every driver since 11.3.
using GetProcV2 = CUresult(CUDAAPI *)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
using GetProcV1 = CUresult(CUDAAPI *)(const char *, void **, int, cuuint64_t);
} // namespace

bool CudaDriver::load(std::string *error) {
  library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    if (error)
      *error = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
               dlerror();
    return false;
  }
  // remote-clang's own libcuda.so.1 (librc_cuda, whose runtime exports
  // __rc_module_load) found first, through an LD_LIBRARY_PATH naming its
  // library folder: serving with it would send the work to a server again.
  if (dlsym(library_, "__rc_module_load")) {
    if (error)
      *error = "libcuda.so.1 is remote-clang's client library, not NVIDIA's "
               "driver: start rc-server without remote-clang's library folder "
               "in LD_LIBRARY_PATH";
    dlclose(library_);
    library_ = nullptr;
    return false;
  }
  auto v2 = reinterpret_cast<GetProcV2>(dlsym(library_, "cuGetProcAddress_v2"));
  auto v1 = reinterpret_cast<GetProcV1>(dlsym(library_, "cuGetProcAddress"));
  if (!v2 && !v1) {
    if (error)
      *error = "libcuda.so.1 has no cuGetProcAddress (driver older than CUDA "
               "11.3?)";
    return false;
  }
  // Legacy default-stream semantics: stream 0 is CU_STREAM_LEGACY.
  const cuuint64_t flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  auto resolve = [&](const char *name, int version, void **out) {
    CUresult r;
    if (v2) {
      CUdriverProcAddressQueryResult status;
      r = v2(name, out, version, flags, &status);
    } else {
      r = v1(name, out, version, flags);
    }
    if (r != CUDA_SUCCESS || !*out) {
      if (error)
        *error = std::string("the CUDA driver does not provide ") + name +
                 " (version " + std::to_string(version) + ")";
      return false;
    }
    return true;
  };
#define RC_RESOLVE(name, version, params)                                      \
  if (!resolve(#name, version, reinterpret_cast<void **>(&name)))              \
    return false;
  RC_CUDA_ENTRY_POINTS(RC_RESOLVE)
#undef RC_RESOLVE
  return true;
}

OpStatus CudaDriver::status(CUresult r) const {
  if (r == CUDA_SUCCESS)
    return OpStatus::success();
  return OpStatus::fail(cudaErrorFromCuResult(int(r)), describe(r));
}

std::string CudaDriver::describe(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(r, &name);
  if (cuGetErrorString)
    cuGetErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(int(r));
  if (text)
    s += std::string(": ") + text;
  return s;
}

} // namespace rc::server
