#include "api/device_settings.h"

#include <cuda_runtime_api.h>

namespace rc::rt {

DeviceSettings &DeviceSettings::instance() {
  static DeviceSettings *settings = new DeviceSettings; // never destroyed
  return *settings;
}

DeviceSettings::Settings &DeviceSettings::at(int device) {
  if (size_t(device) >= devices_.size())
    devices_.resize(size_t(device) + 1);
  return devices_[size_t(device)];
}

cudaError_t DeviceSettings::setFlags(int device, unsigned flags) {
  unsigned schedule = flags & cudaDeviceScheduleMask;
  bool onePolicy = schedule == cudaDeviceScheduleAuto ||
                   schedule == cudaDeviceScheduleSpin ||
                   schedule == cudaDeviceScheduleYield ||
                   schedule == cudaDeviceScheduleBlockingSync;
  if ((flags & ~unsigned(cudaDeviceMask)) || !onePolicy || device < 0)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  at(device).flags = flags;
  return cudaSuccess;
}

unsigned DeviceSettings::flags(int device) {
  std::lock_guard<std::mutex> lock(mu_);
  return device < 0 ? 0 : at(device).flags;
}

cudaError_t DeviceSettings::setCacheConfig(int device, int config) {
  if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual ||
      device < 0)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  at(device).cacheConfig = cudaFuncCache(config);
  return cudaSuccess;
}

cudaFuncCache DeviceSettings::cacheConfig(int device) {
  std::lock_guard<std::mutex> lock(mu_);
  return device < 0 ? cudaFuncCachePreferNone : at(device).cacheConfig;
}

} // namespace rc::rt
