// Device queries, answered from the handshake snapshot without a round trip.
#include "core/device_props.h"
#include "core/runtime.h"

namespace rc::rt {

cudaError_t Runtime::deviceCount(int *count) {
  if (!count)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  cudaError_t err = ensureConnectedLocked();
  *count = err == cudaSuccess ? int(props_.size()) : 0;
  return err;
}

cudaError_t Runtime::deviceProperties(cudaDeviceProp *prop, int device) {
  if (!prop)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = connectedDeviceLocked(device))
    return err;
  *prop = props_[device];
  return cudaSuccess;
}

cudaError_t Runtime::deviceAttribute(int *value, int attr, int device) {
  if (!value)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = connectedDeviceLocked(device))
    return err;
  // cudaDeviceAttr numbers equal CUdevice_attribute's for every attribute
  // both APIs have, so the server's array is indexed directly.
  if (attr <= 0 || size_t(attr) >= attrs_[device].size())
    return cudaErrorInvalidValue;
  *value = attrs_[device][attr];
  return cudaSuccess;
}

cudaError_t Runtime::setProfiling(bool start) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  appendLocked(wire::Command::ProfilerControl,
               wire::CreateProfilerControl(batch_.fbb(), start).Union(),
               {start ? "cudaProfilerStart" : "cudaProfilerStop", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::deviceLimit(int limit, size_t *value, bool set) {
  if (!value)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  uint64_t result = 0;
  if (cudaError_t err = askLocked(
          wire::Command::DeviceLimit,
          wire::CreateDeviceLimit(batch_.fbb(), limit, set ? *value : 0, set)
              .Union(),
          set ? "cudaDeviceSetLimit" : "cudaDeviceGetLimit", &result, nullptr))
    return err;
  *value = size_t(result);
  return cudaSuccess;
}

// Batched: the server resets the current device's context in order.
cudaError_t Runtime::resetPersistingL2() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  appendLocked(wire::Command::ResetPersistingL2,
               wire::CreateResetPersistingL2(batch_.fbb()).Union(),
               {"cudaCtxResetPersistingL2Cache", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::setDevice(int device) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = connectedDeviceLocked(device))
    return err;
  threadDevice() =
      device; // SetDevice is sent before this thread's next command
  return cudaSuccess;
}

cudaError_t Runtime::getDevice(int *device) {
  if (!device)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  *device = threadDevice();
  return cudaSuccess;
}

cudaError_t Runtime::memGetInfo(size_t *freeBytes, size_t *totalBytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  // The protocol has no memory-info command yet: total from the snapshot,
  // free = total minus what this client allocated (other tenants unseen).
  int device = threadDevice();
  size_t total = props_[device].totalGlobalMem, used = 0;
  for (const auto &a : allocs_)
    if (allocDevice_[a.first] == device)
      used += a.second;
  if (freeBytes)
    *freeBytes = used < total ? total - used : 0;
  if (totalBytes)
    *totalBytes = total;
  return cudaSuccess;
}

// Frees everything this client owns on the device and waits for it; the
// session (and its connection) stays.
cudaError_t Runtime::deviceReset() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  appendLocked(wire::Command::DeviceSynchronize,
               wire::CreateDeviceSynchronize(fbb).Union(),
               {"cudaDeviceReset", 0});
  streams_.destroyAllLocked("cudaDeviceReset");
  for (const auto &a : allocs_)
    appendLocked(wire::Command::Free, wire::CreateFree(fbb, a.first).Union(),
                 {"cudaDeviceReset", 0});
  managed_.unmapAll(); // their allocations are among allocs_
  managedAllocs_.clear();
  graphs_.forgetGraphMemoryLocked(); // also among allocs_
  allocs_.clear();
  allocDevice_.clear();
  symbolAddrs_.clear();
  symbolRanges_.clear();
  cudaError_t err = roundTripLocked({}, /*sync=*/true);
  errors_.clear(); // a reset clears sticky state
  return err == cudaErrorDevicesUnavailable ? err : cudaSuccess;
}

} // namespace rc::rt
