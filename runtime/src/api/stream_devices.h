// The device each stream was created on (the calling thread's then), kept
// on the client: cudaLaunchCooperativeKernelMultiDevice launches on each
// stream's device, and librc_cuda's cuStreamGetCtx names its context.
#ifndef RC_RT_STREAM_DEVICES_H
#define RC_RT_STREAM_DEVICES_H

#include <driver_types.h>

#include <map>
#include <mutex>

namespace rc::rt {

class StreamDevices {
public:
  static StreamDevices &instance();
  void created(cudaStream_t stream, int device);
  void destroyed(cudaStream_t stream);
  // The legacy and per-thread streams are the current device's; any other
  // stream is the device it was created on (false: no stream of ours).
  bool deviceOf(cudaStream_t stream, int *device);

private:
  std::mutex mu_;
  std::map<cudaStream_t, int> devices_;
};

} // namespace rc::rt

#endif
