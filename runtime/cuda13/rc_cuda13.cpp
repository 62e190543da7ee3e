// librc_cuda's CUDA 13 entry points that CUDA 12.4's headers cannot
// declare (docs/design/cuda-versions.md). Compiled against CUDA 13's cuda.h.
#include <cuda.h>

#include <cstdio>

extern "C" {

// The runtime's context creation (runtime/cuda/rc_cuda_module.cpp).
CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice device);

// CUDA 13's cuCtxCreate (CUDA 12.5's cuCtxCreate_v4): the parameters ask
// for execution affinity (an SM count) or a shared-context (CIG) mode;
// rc-server keeps one ordinary context per device and session, so only
// an empty request is served, and the rest refused by name.
__attribute__((visibility("default"))) CUresult
cuCtxCreate_v4(CUcontext *ctx, CUctxCreateParams *params, unsigned flags,
               CUdevice device) {
  if (params && (params->execAffinityParams || params->numExecAffinityParams ||
                 params->cigParams)) {
    std::fprintf(stderr,
                 "remote-clang: cuCtxCreate with execution affinity or CIG "
                 "parameters is not supported by the remote driver library\n");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return cuCtxCreate_v2(ctx, flags, device);
}

} // extern "C"
