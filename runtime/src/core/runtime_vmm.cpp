// The driver VMM calls ggml-cuda's memory pool makes (through librc_cuda):
// cuMemAddressReserve is a round trip (the device chooses the address, once
// per pool); the others are batched. Physical allocation handles are chosen
// here, so cuMemCreate needs no round trip either, unless it asks for
// compressible memory: whether the driver granted that is its answer.
// Mapped ranges count as device memory locally (cudaMemcpyDefault,
// cudaPointerGetAttributes).
#include "core/runtime.h"

namespace rc::rt {

cudaError_t Runtime::vmmAddressReserve(uint64_t *addr, size_t size,
                                       size_t alignment) {
  if (!addr || size == 0)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  bool filled = false;
  Sink sink;
  sink.index = appendLocked(
      wire::Command::MemAddressReserve,
      wire::CreateMemAddressReserve(batch_.fbb(), size, alignment).Union(),
      {"cuMemAddressReserve", 0});
  sink.addr = addr;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  return filled && *addr ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t Runtime::vmmAddressFree(uint64_t addr, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  appendLocked(wire::Command::MemAddressFree,
               wire::CreateMemAddressFree(batch_.fbb(), addr, size).Union(),
               {"cuMemAddressFree", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::vmmCreate(uint64_t *handle, size_t size, int device,
                               uint8_t compression) {
  if (!handle || size == 0)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = connectedDeviceLocked(device))
    return err;
  ensureDeviceLocked();
  uint64_t h = nextVmmHandle_++;
  auto cmd =
      wire::CreateMemCreate(batch_.fbb(), h, size, device, compression).Union();
  VmmAllocation made{device, 0};
  if (compression) {
    double granted = 0;
    if (cudaError_t err = askLocked(wire::Command::MemCreate, cmd,
                                    "cuMemCreate", nullptr, &granted))
      return err;
    made.compression = uint8_t(granted);
  } else {
    appendLocked(wire::Command::MemCreate, cmd, {"cuMemCreate", 0});
    afterAppendLocked();
  }
  vmmAllocations_[h] = made;
  *handle = h;
  return cudaSuccess;
}

cudaError_t Runtime::vmmProperties(uint64_t handle, int *device,
                                   uint8_t *compression) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vmmAllocations_.find(handle);
  if (it == vmmAllocations_.end())
    return cudaErrorInvalidValue;
  *device = it->second.device;
  *compression = it->second.compression;
  return cudaSuccess;
}

cudaError_t Runtime::vmmRelease(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  vmmAllocations_.erase(handle);
  ensureDeviceLocked();
  appendLocked(wire::Command::MemRelease,
               wire::CreateMemRelease(batch_.fbb(), handle).Union(),
               {"cuMemRelease", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::vmmMap(uint64_t addr, size_t size, size_t offset,
                            uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  appendLocked(
      wire::Command::MemMap,
      wire::CreateMemMap(batch_.fbb(), addr, size, offset, handle).Union(),
      {"cuMemMap", 0});
  afterAppendLocked();
  vmmMapped_[addr] = size;
  return cudaSuccess;
}

cudaError_t Runtime::vmmUnmap(uint64_t addr, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  appendLocked(wire::Command::MemUnmap,
               wire::CreateMemUnmap(batch_.fbb(), addr, size).Union(),
               {"cuMemUnmap", 0});
  afterAppendLocked();
  vmmMapped_.erase(vmmMapped_.lower_bound(addr),
                   vmmMapped_.lower_bound(addr + size));
  return cudaSuccess;
}

cudaError_t Runtime::vmmSetAccess(uint64_t addr, size_t size,
                                  const std::vector<int> &devices) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  auto list = batch_.fbb().CreateVector(devices);
  appendLocked(wire::Command::MemSetAccess,
               wire::CreateMemSetAccess(batch_.fbb(), addr, size, list).Union(),
               {"cuMemSetAccess", 0});
  afterAppendLocked();
  return cudaSuccess;
}

} // namespace rc::rt
