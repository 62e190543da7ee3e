// cudaLaunchCooperativeKernelMultiDevice: one cooperative launch per
// device, each on its stream's device (api/stream_devices.h). CUDA 12's
// device code has no grid synchronization across devices any more, so a
// launch per device is what the call does; what CUDA adds around them,
// unless the flags say not to, is that no launch starts before the earlier
// work of every stream given, and no later work of any of them before all
// launches: events recorded on each stream and waited for by the others.
#include "api/global.h"
#include "api/stream_devices.h"

#include <vector>

using rc::rt::record;
using rc::rt::runtime;

namespace {

// Makes every stream wait for what each of the others holds now.
cudaError_t joinStreams(const cudaLaunchParams *list,
                        const std::vector<int> &devices) {
  size_t n = devices.size();
  std::vector<cudaEvent_t> events(n, nullptr);
  cudaError_t err = cudaSuccess;
  for (size_t i = 0; i < n && !err; ++i) {
    runtime().setDevice(devices[i]);
    err = cudaEventCreateWithFlags(&events[i], cudaEventDisableTiming);
    if (!err)
      err = cudaEventRecord(events[i], list[i].stream);
  }
  for (size_t j = 0; j < n && !err; ++j) {
    runtime().setDevice(devices[j]);
    for (size_t i = 0; i < n && !err; ++i)
      if (i != j)
        err = cudaStreamWaitEvent(list[j].stream, events[i], 0);
  }
  for (cudaEvent_t e : events)
    if (e)
      cudaEventDestroy(e);
  return err;
}

cudaError_t launchOnDevices(cudaLaunchParams *list, unsigned n,
                            unsigned flags) {
  const unsigned known = cudaCooperativeLaunchMultiDeviceNoPreSync |
                         cudaCooperativeLaunchMultiDeviceNoPostSync;
  if (!list || n == 0 || (flags & ~known))
    return cudaErrorInvalidValue;
  std::vector<int> devices(n);
  for (unsigned i = 0; i < n; ++i) {
    if (!rc::rt::StreamDevices::instance().deviceOf(list[i].stream,
                                                    &devices[i]))
      return cudaErrorInvalidResourceHandle;
    for (unsigned j = 0; j < i; ++j)
      if (devices[j] == devices[i])
        return cudaErrorInvalidDevice; // one launch per device
    // The same kernel and configuration on every device, as CUDA requires.
    const cudaLaunchParams &a = list[i], &b = list[0];
    if (a.func != b.func || a.sharedMem != b.sharedMem ||
        a.gridDim.x != b.gridDim.x || a.gridDim.y != b.gridDim.y ||
        a.gridDim.z != b.gridDim.z || a.blockDim.x != b.blockDim.x ||
        a.blockDim.y != b.blockDim.y || a.blockDim.z != b.blockDim.z)
      return cudaErrorInvalidValue;
  }
  if (!(flags & cudaCooperativeLaunchMultiDeviceNoPreSync))
    if (cudaError_t err = joinStreams(list, devices))
      return err;
  for (unsigned i = 0; i < n; ++i) {
    runtime().setDevice(devices[i]);
    if (cudaError_t err = cudaLaunchCooperativeKernel(
            list[i].func, list[i].gridDim, list[i].blockDim, list[i].args,
            list[i].sharedMem, list[i].stream))
      return err;
  }
  if (!(flags & cudaCooperativeLaunchMultiDeviceNoPostSync))
    return joinStreams(list, devices);
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t cudaLaunchCooperativeKernelMultiDevice(cudaLaunchParams *list,
                                                   unsigned int numDevices,
                                                   unsigned int flags) {
  int before = 0;
  runtime().getDevice(&before);
  cudaError_t err = launchOnDevices(list, numDevices, flags);
  runtime().setDevice(before);
  return record(err);
}

// For librc_cuda's cuStreamGetCtx.
__attribute__((visibility("default"))) int
__rc_stream_device(cudaStream_t stream, int *device) {
  return rc::rt::StreamDevices::instance().deviceOf(stream, device);
}

} // extern "C"
