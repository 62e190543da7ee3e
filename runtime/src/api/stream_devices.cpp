#include "api/stream_devices.h"

#include "api/global.h"

namespace rc::rt {

StreamDevices &StreamDevices::instance() {
  static StreamDevices *kept = new StreamDevices; // never destroyed
  return *kept;
}

void StreamDevices::created(cudaStream_t stream, int device) {
  std::lock_guard<std::mutex> lock(mu_);
  devices_[stream] = device;
}

void StreamDevices::destroyed(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  devices_.erase(stream);
}

bool StreamDevices::deviceOf(cudaStream_t stream, int *device) {
  if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return runtime().getDevice(device) == cudaSuccess;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = devices_.find(stream);
  if (it == devices_.end())
    return false;
  *device = it->second;
  return true;
}

} // namespace rc::rt
