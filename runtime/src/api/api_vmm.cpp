// The runtime side of librc_cuda's VMM calls (core/vmm.cpp). librc_cuda
// converts the driver-API types and errors; these entry points are exported
// from librc_cudart as __rc_* so the two libraries share one connection.
#include "api/global.h"

#include <vector>

using rc::rt::runtime;

extern "C" {

cudaError_t __rc_vmm_address_reserve(uint64_t *addr, size_t size,
                                     size_t alignment) {
  return runtime().vmm().vmmAddressReserve(addr, size, alignment);
}
cudaError_t __rc_vmm_address_free(uint64_t addr, size_t size) {
  return runtime().vmm().vmmAddressFree(addr, size);
}
cudaError_t __rc_vmm_create(uint64_t *handle, size_t size, int device,
                            uint8_t compression) {
  return runtime().vmm().vmmCreate(handle, size, device, compression);
}
cudaError_t __rc_vmm_properties(uint64_t handle, int *device,
                                uint8_t *compression) {
  return runtime().vmm().vmmProperties(handle, device, compression);
}
cudaError_t __rc_vmm_release(uint64_t handle) {
  return runtime().vmm().vmmRelease(handle);
}
cudaError_t __rc_vmm_map(uint64_t addr, size_t size, size_t offset,
                         uint64_t handle) {
  return runtime().vmm().vmmMap(addr, size, offset, handle);
}
cudaError_t __rc_vmm_unmap(uint64_t addr, size_t size) {
  return runtime().vmm().vmmUnmap(addr, size);
}
cudaError_t __rc_vmm_set_access(uint64_t addr, size_t size, const int *devices,
                                size_t count) {
  return runtime().vmm().vmmSetAccess(
      addr, size, std::vector<int>(devices, devices + count));
}

} // extern "C"
