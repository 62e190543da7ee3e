// librc_cuda's entry points that NVIDIA's libcuda exports beyond what cuda.h
// declares for programs. Older ABIs that later CUDA versions replaced by
// _v2 symbols with the same parameters: programs linked by name never call
// them (cuda.h maps each name to its _v2), but programs that resolve names
// themselves do: cuda-samples' matrixMulDynlinkJIT requires them of any
// libcuda.so.1 it dlopens (docs/driver-api.md, "Programs that load CUDA
// themselves"). Each is its _v2: served where that is, else a stub failing
// by the _v2's name. And cuGetExportTable, which only NVIDIA's own
// libraries call.
#include <cuda.h>

#include <cstdio>

#undef cuCtxDestroy
#undef cuCtxPopCurrent
#undef cuCtxPushCurrent
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuIpcOpenMemHandle
#undef cuMemHostRegister
#undef cuGraphicsResourceSetMapFlags
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuLinkCreate
#undef cuLinkAddData
#undef cuLinkAddFile

extern "C" {

__attribute__((visibility("default"))) CUresult cuCtxDestroy(CUcontext ctx) {
  return cuCtxDestroy_v2(ctx);
}

__attribute__((visibility("default"))) CUresult
cuCtxPopCurrent(CUcontext *ctx) {
  return cuCtxPopCurrent_v2(ctx);
}

__attribute__((visibility("default"))) CUresult
cuCtxPushCurrent(CUcontext ctx) {
  return cuCtxPushCurrent_v2(ctx);
}

__attribute__((visibility("default"))) CUresult
cuStreamDestroy(CUstream stream) {
  return cuStreamDestroy_v2(stream);
}

__attribute__((visibility("default"))) CUresult cuEventDestroy(CUevent event) {
  return cuEventDestroy_v2(event);
}

// CUDA 4.1's ABI, replaced by CUDA 11.0's with the same parameters.
__attribute__((visibility("default"))) CUresult
cuIpcOpenMemHandle(CUdeviceptr *ptr, CUipcMemHandle handle, unsigned flags) {
  return cuIpcOpenMemHandle_v2(ptr, handle, flags);
}

// CUDA 4.0's, 3.0's, 7.0's and 5.5's, each replaced with the same
// parameters.
__attribute__((visibility("default"))) CUresult
cuMemHostRegister(void *p, size_t bytes, unsigned flags) {
  return cuMemHostRegister_v2(p, bytes, flags);
}

__attribute__((visibility("default"))) CUresult
cuGraphicsResourceSetMapFlags(CUgraphicsResource resource, unsigned flags) {
  return cuGraphicsResourceSetMapFlags_v2(resource, flags);
}

__attribute__((visibility("default"))) CUresult
cuDevicePrimaryCtxRelease(CUdevice device) {
  return cuDevicePrimaryCtxRelease_v2(device);
}

__attribute__((visibility("default"))) CUresult
cuDevicePrimaryCtxReset(CUdevice device) {
  return cuDevicePrimaryCtxReset_v2(device);
}

__attribute__((visibility("default"))) CUresult
cuDevicePrimaryCtxSetFlags(CUdevice device, unsigned flags) {
  return cuDevicePrimaryCtxSetFlags_v2(device, flags);
}

__attribute__((visibility("default"))) CUresult
cuLinkCreate(unsigned numOptions, CUjit_option *options, void **values,
             CUlinkState *state) {
  return cuLinkCreate_v2(numOptions, options, values, state);
}

__attribute__((visibility("default"))) CUresult
cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
              const char *name, unsigned numOptions, CUjit_option *options,
              void **values) {
  return cuLinkAddData_v2(state, type, data, size, name, numOptions, options,
                          values);
}

__attribute__((visibility("default"))) CUresult
cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
              unsigned numOptions, CUjit_option *options, void **values) {
  return cuLinkAddFile_v2(state, type, path, numOptions, options, values);
}

// NVIDIA's private interface between its runtime and driver: only NVIDIA's
// own libraries (libcudart, ...) call it, so one of them was loaded with
// this driver library, and it cannot work on it.
__attribute__((visibility("default"))) CUresult
cuGetExportTable(const void **table, const CUuuid *) {
  if (table)
    *table = nullptr;
  static bool said = false;
  if (!said) {
    said = true;
    std::fprintf(stderr,
                 "remote-clang: NVIDIA's CUDA runtime (or another library "
                 "of NVIDIA's) is loaded with remote-clang's libcuda.so.1: "
                 "it needs NVIDIA's driver. Build the program with "
                 "remote-clang, or let it load remote-clang's runtime "
                 "(libcudart.so.12 in the same folder) instead\n");
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}

} // extern "C"
