// Driver-API modules (docs/driver-api.md), for librc_cuda: the module calls
// reach this process's connection through these exports.
#include "api/global.h"

using rc::rt::runtime;

extern "C" {

cudaError_t __rc_module_load(uint64_t *module, const void *image, size_t size) {
  return runtime().kernels().moduleLoad(image, size, module);
}
cudaError_t __rc_module_unload(uint64_t module) {
  return runtime().kernels().moduleUnload(module);
}
cudaError_t __rc_module_function(uint64_t *function, uint64_t module,
                                 const char *name) {
  return runtime().kernels().moduleFunction(module, name, function);
}
cudaError_t __rc_launch_function(uint64_t function, dim3 grid, dim3 block,
                                 unsigned sharedMem, cudaStream_t stream,
                                 void **params, void **extra) {
  return runtime().kernels().launchFunction(function, grid, block, sharedMem,
                                            stream, params, extra);
}

} // extern "C"
