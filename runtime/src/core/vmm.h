// The driver's virtual memory management calls ggml-cuda's memory pool
// makes through librc_cuda (vmm.cpp): address reservations, physical
// allocations (handles chosen here), their mappings and access. Mapped
// ranges count as device memory for the runtime's range checks.
//
// Locking: guarded by the runtime's lock (runtime.h, "Locking"); the public
// calls take it, *Locked ones expect it held.
#ifndef RC_RT_VMM_H
#define RC_RT_VMM_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace rc::rt {

class Runtime;

class Vmm {
public:
  explicit Vmm(Runtime &rt) : rt_(rt) {}
  Vmm(const Vmm &) = delete;
  Vmm &operator=(const Vmm &) = delete;

  cudaError_t vmmAddressReserve(uint64_t *addr, size_t size, size_t alignment);
  cudaError_t vmmAddressFree(uint64_t addr, size_t size);
  // compression: a CUmemAllocationCompType (0: none); asking for one costs
  // a round trip, for the driver's answer.
  cudaError_t vmmCreate(uint64_t *handle, size_t size, int device,
                        uint8_t compression = 0);
  // cuMemGetAllocationPropertiesFromHandle: what cuMemCreate made.
  cudaError_t vmmProperties(uint64_t handle, int *device, uint8_t *compression);
  cudaError_t vmmRelease(uint64_t handle);
  cudaError_t vmmMap(uint64_t addr, size_t size, size_t offset,
                     uint64_t handle);
  cudaError_t vmmUnmap(uint64_t addr, size_t size);
  cudaError_t vmmSetAccess(uint64_t addr, size_t size,
                           const std::vector<int> &devices);

  // The cuMemMap'd ranges, address -> size (with the runtime's lock held).
  const std::map<uint64_t, size_t> &mappedLocked() const { return mapped_; }

private:
  Runtime &rt_;
  std::map<uint64_t, size_t> mapped_; // cuMemMap'd ranges
  uint64_t nextHandle_ = 1;           // cuMemCreate handles
  struct Allocation {
    int device = 0;
    uint8_t compression = 0; // as the driver granted it
  };
  std::map<uint64_t, Allocation> allocations_; // until cuMemRelease
};

} // namespace rc::rt

#endif
