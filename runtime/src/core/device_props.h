// The device as a client of remote-clang sees it: the server's GPU
// attributes (HelloReply.devices, indexed by CUdevice_attribute), with
// those that describe the GPU's coupling to its own host, or features the
// remote runtime does not serve, replaced by what this client actually
// gets (remoteAttributes()). cudaGetDeviceProperties, cudaDeviceGetAttribute
// and cuDeviceGetAttribute all read the result.
#ifndef RC_RT_DEVICE_PROPS_H
#define RC_RT_DEVICE_PROPS_H

#include "protocol_generated.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rc::rt {

// One attribute whose value remote-clang sets instead of the GPU's.
struct RemoteAttribute {
  CUdevice_attribute attribute;
  const char *driverName;  // CU_DEVICE_ATTRIBUTE_...
  const char *runtimeName; // cudaDevAttr..., or "" where cudart has none
  const char *propField;   // the cudaDeviceProp field, or ""
  int32_t value;
  const char *reason;
};

// Every such attribute, in attribute order; docs/device-attributes.md
// carries the same table (remoteAttributesMarkdown(), checked
// by a test).
const std::vector<RemoteAttribute> &remoteAttributes();
// The table as docs/runtime-api.md writes it, one row per line.
std::string remoteAttributesMarkdown();

void fillDeviceProp(cudaDeviceProp &p, const wire::DeviceInfo &info);
// attrs[a] or 0 when the server did not send attribute `a`.
int attributeOr0(const std::vector<int32_t> &attrs, int a);
// The server's attributes with remoteAttributes() applied.
std::vector<int32_t> attributesSeenRemotely(const wire::DeviceInfo &info);

} // namespace rc::rt

#endif
