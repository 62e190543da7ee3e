// Calls declared by cuda_runtime_api.h that the remote runtime does not
// implement yet. Each fails at the call with cudaErrorNotSupported and a
// one-time "remote-clang: <call> is not supported by the remote runtime",
// never silently. (Mapped memory cannot work across the wire.)
#include "api/global.h"
#include "api/unsupported.h"

#define RC_UNSUPPORTED(name, ...)                                              \
  cudaError_t name(__VA_ARGS__) {                                              \
    return rc::rt::record(rc::rt::reportUnsupported(#name));                   \
  }

extern "C" {

// The generated stubs (runtime/gen_unsupported_stubs.py) of every other
// runtime function the headers declare and this library lacks.
__attribute__((visibility("default"))) int
__rc_runtime_unsupported(const char *call) {
  return rc::rt::record(rc::rt::reportUnsupported(call));
}

RC_UNSUPPORTED(cudaHostGetDevicePointer, void **, void *, unsigned int)
RC_UNSUPPORTED(cudaIpcGetMemHandle, cudaIpcMemHandle_t *, void *)
RC_UNSUPPORTED(cudaIpcOpenMemHandle, void **, cudaIpcMemHandle_t, unsigned int)

} // extern "C"
