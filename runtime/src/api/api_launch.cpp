// Launch entry points: the four of rc/launch_abi.h (constant kernel IDs put
// there by the toolchain's pass) and cudaLaunchKernel & co. with a stub
// pointer, resolved through the registration table + manifest.
#include "api/global.h"
#include "rc/launch_abi.h"

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t __rc_launch_kernel(uint64_t id, dim3 grid, dim3 block, void **args,
                               size_t shmem, cudaStream_t s) {
  return record(
      runtime().kernels().launch(id, grid, block, args, shmem, s, false));
}

cudaError_t __rc_launch_kernel_ptsz(uint64_t id, dim3 grid, dim3 block,
                                    void **args, size_t shmem, cudaStream_t s) {
  return record(
      runtime().kernels().launch(id, grid, block, args, shmem, s, true));
}

// Grid-wide sync: the server launches with CU_LAUNCH_ATTRIBUTE_COOPERATIVE.
cudaError_t __rc_launch_cooperative_kernel(uint64_t id, dim3 grid, dim3 block,
                                           void **args, size_t shmem,
                                           cudaStream_t s) {
  return record(runtime().kernels().launchCooperative(id, grid, block, args,
                                                      shmem, s, false));
}

cudaError_t __rc_launch_kernel_ex(const cudaLaunchConfig_t *cfg, uint64_t id,
                                  void **args) {
  return record(runtime().kernels().launchEx(cfg, id, args, false));
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block,
                             void **args, size_t shmem, cudaStream_t s) {
  return record(
      runtime().kernels().launchStub(func, grid, block, args, shmem, s, false));
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block,
                                  void **args, size_t shmem, cudaStream_t s) {
  return record(
      runtime().kernels().launchStub(func, grid, block, args, shmem, s, true));
}

static cudaError_t launchExC(const cudaLaunchConfig_t *cfg, const void *func,
                             void **args, bool perThread) {
  uint64_t id;
  if (cudaError_t err = runtime().kernels().stubToId(func, &id))
    return err;
  return runtime().kernels().launchEx(cfg, id, args, perThread);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *cfg, const void *func,
                                void **args) {
  return record(launchExC(cfg, func, args, false));
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *cfg,
                                     const void *func, void **args) {
  return record(launchExC(cfg, func, args, true));
}

static cudaError_t launchCooperative(const void *func, dim3 grid, dim3 block,
                                     void **args, size_t shmem, cudaStream_t s,
                                     bool perThread) {
  uint64_t id;
  if (cudaError_t err = runtime().kernels().stubToId(func, &id))
    return err;
  return runtime().kernels().launchCooperative(id, grid, block, args, shmem, s,
                                               perThread);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block,
                                        void **args, size_t shmem,
                                        cudaStream_t s) {
  return record(launchCooperative(func, grid, block, args, shmem, s, false));
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid,
                                             dim3 block, void **args,
                                             size_t shmem, cudaStream_t s) {
  return record(launchCooperative(func, grid, block, args, shmem, s, true));
}

} // extern "C"
