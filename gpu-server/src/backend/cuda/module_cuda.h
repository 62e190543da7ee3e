// Driver-API modules on the CUDA driver (docs/driver-api.md): an image
// loaded as a context-independent CUlibrary, its kernels' parameter layouts
// from cuKernelGetParamInfo.
#ifndef RC_SERVER_MODULE_CUDA_H
#define RC_SERVER_MODULE_CUDA_H

#include "backend/cuda/cuda_driver.h"
#include "rc/server/registry.h"

#include <vector>

namespace rc::server {

OpStatus loadCudaModule(const CudaDriver &driver,
                        const std::vector<uint8_t> &image,
                        NativeHandle *module);
void unloadCudaModule(const CudaDriver &driver, NativeHandle module);
OpStatus cudaModuleKernel(const CudaDriver &driver, NativeHandle module,
                          const std::string &name, KernelInfo *out);

} // namespace rc::server

#endif
