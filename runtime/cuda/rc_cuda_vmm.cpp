// librc_cuda.so: the driver VMM calls, exactly as ggml-cuda's memory pool
// (ggml_cuda_pool_vmm) makes them: reserve a large VA range once, then grow
// the pool by cuMemCreate + cuMemMap + cuMemSetAccess at its end, release
// the handle right after mapping, and unmap / free the range at teardown.
// Argument checks happen here, as the driver does them; the work goes to
// librc_cudart's connection (__rc_vmm_*): cuMemAddressReserve is a round trip,
// everything else is batched and its errors surface at the next sync.
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

extern "C" {
cudaError_t __rc_vmm_address_reserve(uint64_t *addr, size_t size,
                                     size_t alignment);
cudaError_t __rc_vmm_address_free(uint64_t addr, size_t size);
cudaError_t __rc_vmm_create(uint64_t *handle, size_t size, int device,
                            uint8_t compression);
cudaError_t __rc_vmm_properties(uint64_t handle, int *device,
                                uint8_t *compression);
cudaError_t __rc_vmm_release(uint64_t handle);
cudaError_t __rc_vmm_map(uint64_t addr, size_t size, size_t offset,
                         uint64_t handle);
cudaError_t __rc_vmm_unmap(uint64_t addr, size_t size);
cudaError_t __rc_vmm_set_access(uint64_t addr, size_t size, const int *devices,
                                size_t count);
int __rc_report_unsupported(const char *call, const char *library);
}

using rc::cu::fromRuntime;

namespace {

// Every NVIDIA GPU since VMM appeared (Pascal through Hopper) reports 2 MiB
// as both the minimum and the recommended granularity of device memory; no
// device attribute carries it, so it is answered locally.
constexpr size_t kGranularity = 2u << 20;

CUresult unsupported(const char *what) {
  __rc_report_unsupported(what, "driver library");
  return CUDA_ERROR_NOT_SUPPORTED;
}

// Device memory of an existing device, the only kind the server makes.
CUresult checkProp(const CUmemAllocationProp *prop, const char *call) {
  if (!prop)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return unsupported(call); // host / managed / IPC-shareable kinds
  if (prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_NONE)
    return unsupported(call);
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count))
    return fromRuntime(e);
  if (prop->location.id < 0 || prop->location.id >= count)
    return CUDA_ERROR_INVALID_DEVICE;
  return CUDA_SUCCESS;
}

bool aligned(uint64_t v) { return v % kGranularity == 0; }

} // namespace

extern "C" {

CUresult cuMemGetAllocationGranularity(size_t *granularity,
                                       const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags) {
  if (!granularity)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = checkProp(prop, "cuMemGetAllocationGranularity"))
    return r;
  *granularity = kGranularity;
  return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                             CUdeviceptr, unsigned long long flags) {
  // The address hint is only a hint (CUDA may ignore it too).
  if (!ptr || size == 0 || !aligned(size) || flags != 0 ||
      (alignment & (alignment - 1)))
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t addr = 0;
  if (cudaError_t e = __rc_vmm_address_reserve(&addr, size, alignment))
    return fromRuntime(e);
  *ptr = CUdeviceptr(addr);
  return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  if (!ptr || size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(__rc_vmm_address_free(ptr, size));
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                     const CUmemAllocationProp *prop,
                     unsigned long long flags) {
  if (!handle || size == 0 || !aligned(size) || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = checkProp(prop, "cuMemCreate"))
    return r;
  unsigned char compression = prop->allocFlags.compressionType;
  if (compression != 0 && compression != CU_MEM_ALLOCATION_COMP_GENERIC)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t h = 0;
  if (cudaError_t e = __rc_vmm_create(&h, size, prop->location.id, compression))
    return fromRuntime(e);
  *handle = CUmemGenericAllocationHandle(h);
  return CUDA_SUCCESS;
}

// What cuMemCreate made, as the client recorded it (compression as the
// driver granted it).
CUresult
cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                       CUmemGenericAllocationHandle handle) {
  if (!prop)
    return CUDA_ERROR_INVALID_VALUE;
  int device = 0;
  uint8_t compression = 0;
  if (cudaError_t e = __rc_vmm_properties(handle, &device, &compression))
    return fromRuntime(e);
  *prop = CUmemAllocationProp();
  prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop->location.id = device;
  prop->allocFlags.compressionType = compression;
  return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  if (!handle)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(__rc_vmm_release(handle));
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                  CUmemGenericAllocationHandle handle,
                  unsigned long long flags) {
  if (!ptr || !handle || size == 0 || flags != 0 || !aligned(ptr) ||
      !aligned(size) || !aligned(offset))
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(__rc_vmm_map(ptr, size, offset, handle));
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  if (!ptr || size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(__rc_vmm_unmap(ptr, size));
}

// Read-write access for devices of the session is what there is to grant;
// other locations or protections are refused by name.
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size,
                        const CUmemAccessDesc *desc, size_t count) {
  if (!ptr || size == 0 || !desc || count == 0)
    return CUDA_ERROR_INVALID_VALUE;
  int devices = 0;
  if (cudaError_t e = cudaGetDeviceCount(&devices))
    return fromRuntime(e);
  std::vector<int> granted;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return unsupported("cuMemSetAccess other than read-write for a device");
    if (desc[i].location.id < 0 || desc[i].location.id >= devices)
      return CUDA_ERROR_INVALID_DEVICE;
    granted.push_back(desc[i].location.id);
  }
  return fromRuntime(
      __rc_vmm_set_access(ptr, size, granted.data(), granted.size()));
}

} // extern "C"
