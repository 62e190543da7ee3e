// Fills the CUDA 12.4 cudaDeviceProp from the handshake's DeviceInfo, whose
// attributes are indexed by CUdevice_attribute.
#ifndef RC_RT_DEVICE_PROPS_H
#define RC_RT_DEVICE_PROPS_H

#include "protocol_generated.h"

#include <cuda_runtime_api.h>
#include <vector>

namespace rc::rt {

void fillDeviceProp(cudaDeviceProp &p, const wire::DeviceInfo &info);
// attrs[a] or 0 when the server did not send attribute `a`.
int attributeOr0(const std::vector<int32_t> &attrs, int a);
// The server's attributes as a client sees the GPU: those that couple the
// GPU to this host's memory (mapped and pageable host memory, concurrent
// managed access, host atomics) are 0, since the GPU is on another machine;
// managed memory is 1 (served by host mirrors, core/managed_memory.h).
// cudaGetDeviceProperties and cudaDeviceGetAttribute both read this.
std::vector<int32_t> attributesSeenRemotely(const wire::DeviceInfo &info);

} // namespace rc::rt

#endif
