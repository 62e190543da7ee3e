// The driver VMM calls ggml-cuda's memory pool makes (through librc_cuda):
// cuMemAddressReserve is a round trip (the device chooses the address, once
// per pool); the others are batched. Physical allocation handles are chosen
// here, so cuMemCreate needs no round trip either, unless it asks for
// compressible memory: whether the driver granted that is its answer.
// Mapped ranges count as device memory locally (cudaMemcpyDefault,
// cudaPointerGetAttributes).
#include "core/vmm.h"

#include "core/runtime.h"

namespace rc::rt {

cudaError_t Vmm::vmmAddressReserve(uint64_t *addr, size_t size,
                                   size_t alignment) {
  if (!addr || size == 0)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  bool filled = false;
  Runtime::Sink sink;
  sink.index = rt_.appendLocked(
      wire::Command::MemAddressReserve,
      wire::CreateMemAddressReserve(rt_.batch_.fbb(), size, alignment).Union(),
      {"cuMemAddressReserve", 0});
  sink.addr = addr;
  sink.filled = &filled;
  if (cudaError_t err = rt_.roundTripLocked({sink}, /*sync=*/false))
    return err;
  return filled && *addr ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t Vmm::vmmAddressFree(uint64_t addr, size_t size) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  rt_.appendLocked(
      wire::Command::MemAddressFree,
      wire::CreateMemAddressFree(rt_.batch_.fbb(), addr, size).Union(),
      {"cuMemAddressFree", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Vmm::vmmCreate(uint64_t *handle, size_t size, int device,
                           uint8_t compression) {
  if (!handle || size == 0)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.connectedDeviceLocked(device))
    return err;
  rt_.ensureDeviceLocked();
  uint64_t h = nextHandle_++;
  auto cmd =
      wire::CreateMemCreate(rt_.batch_.fbb(), h, size, device, compression)
          .Union();
  Allocation made{device, 0};
  if (compression) {
    double granted = 0;
    if (cudaError_t err = rt_.askLocked(wire::Command::MemCreate, cmd,
                                        "cuMemCreate", nullptr, &granted))
      return err;
    made.compression = uint8_t(granted);
  } else {
    rt_.appendLocked(wire::Command::MemCreate, cmd, {"cuMemCreate", 0});
    rt_.afterAppendLocked();
  }
  allocations_[h] = made;
  *handle = h;
  return cudaSuccess;
}

cudaError_t Vmm::vmmProperties(uint64_t handle, int *device,
                               uint8_t *compression) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  auto it = allocations_.find(handle);
  if (it == allocations_.end())
    return cudaErrorInvalidValue;
  *device = it->second.device;
  *compression = it->second.compression;
  return cudaSuccess;
}

cudaError_t Vmm::vmmRelease(uint64_t handle) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  allocations_.erase(handle);
  rt_.ensureDeviceLocked();
  rt_.appendLocked(wire::Command::MemRelease,
                   wire::CreateMemRelease(rt_.batch_.fbb(), handle).Union(),
                   {"cuMemRelease", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Vmm::vmmMap(uint64_t addr, size_t size, size_t offset,
                        uint64_t handle) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  rt_.appendLocked(
      wire::Command::MemMap,
      wire::CreateMemMap(rt_.batch_.fbb(), addr, size, offset, handle).Union(),
      {"cuMemMap", 0});
  rt_.afterAppendLocked();
  mapped_[addr] = size;
  return cudaSuccess;
}

cudaError_t Vmm::vmmUnmap(uint64_t addr, size_t size) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  rt_.appendLocked(wire::Command::MemUnmap,
                   wire::CreateMemUnmap(rt_.batch_.fbb(), addr, size).Union(),
                   {"cuMemUnmap", 0});
  rt_.afterAppendLocked();
  mapped_.erase(mapped_.lower_bound(addr), mapped_.lower_bound(addr + size));
  return cudaSuccess;
}

cudaError_t Vmm::vmmSetAccess(uint64_t addr, size_t size,
                              const std::vector<int> &devices) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  auto list = rt_.batch_.fbb().CreateVector(devices);
  rt_.appendLocked(
      wire::Command::MemSetAccess,
      wire::CreateMemSetAccess(rt_.batch_.fbb(), addr, size, list).Union(),
      {"cuMemSetAccess", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

} // namespace rc::rt
