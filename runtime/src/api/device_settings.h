// What a program sets on a device that changes no result across the
// network but must read back as set: the device flags (scheduling hints),
// the preferred cache configuration, the valid-device list. Kept per
// device on the client, as CUDA keeps them per primary context.
#ifndef RC_RT_DEVICE_SETTINGS_H
#define RC_RT_DEVICE_SETTINGS_H

#include <driver_types.h>

#include <mutex>
#include <vector>

namespace rc::rt {

class DeviceSettings {
public:
  static DeviceSettings &instance();

  // cudaSetDeviceFlags / cudaInitDevice: cudaErrorInvalidValue for bits
  // outside cudaDeviceMask or more than one scheduling policy.
  cudaError_t setFlags(int device, unsigned flags);
  unsigned flags(int device);
  // cudaDeviceSetCacheConfig: a preference of carveout on current GPUs,
  // read back by cudaDeviceGetCacheConfig.
  cudaError_t setCacheConfig(int device, int config);
  cudaFuncCache cacheConfig(int device);

private:
  struct Settings {
    unsigned flags = 0;
    cudaFuncCache cacheConfig = cudaFuncCachePreferNone;
  };
  Settings &at(int device); // mu_ held
  std::mutex mu_;
  std::vector<Settings> devices_;
};

} // namespace rc::rt

#endif
