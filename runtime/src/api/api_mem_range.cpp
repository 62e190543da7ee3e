// cudaMemRangeGetAttribute(s): the advice given about a range of managed
// memory (api/managed_advice.h), read back as CUDA reads it. Prefetching
// is refused as on GPUs without concurrent managed access
// (Runtime::memPrefetch), so no range was ever prefetched anywhere.
#include "api/global.h"
#include "api/managed_advice.h"
#include "core/enum_number.h"

#include <cstring>
#include <vector>

using rc::rt::ManagedAdvice;
using rc::rt::record;
using rc::rt::runtime;

namespace {

bool isManaged(const void *p) {
  cudaPointerAttributes a;
  return runtime().pointerAttributes(&a, p) == cudaSuccess &&
         a.type == cudaMemoryTypeManaged;
}

cudaError_t putInt(void *data, size_t size, int value) {
  if (size != sizeof(int))
    return cudaErrorInvalidValue;
  std::memcpy(data, &value, sizeof value);
  return cudaSuccess;
}

// A device number as a location type and ID.
int locationType(int device) {
  return device == cudaCpuDeviceId       ? cudaMemLocationTypeHost
         : device == cudaInvalidDeviceId ? cudaMemLocationTypeInvalid
                                         : cudaMemLocationTypeDevice;
}

cudaError_t rangeAttribute(void *data, size_t size, int attribute,
                           uintptr_t start, size_t count) {
  ManagedAdvice &advice = ManagedAdvice::instance();
  switch (attribute) {
  case cudaMemRangeAttributeReadMostly:
    return putInt(data, size, advice.readMostly(start, count) ? 1 : 0);
  case cudaMemRangeAttributePreferredLocation:
    return putInt(data, size, advice.preferredLocation(start, count));
  case cudaMemRangeAttributePreferredLocationType:
    return putInt(data, size,
                  locationType(advice.preferredLocation(start, count)));
  case cudaMemRangeAttributePreferredLocationId: {
    int device = advice.preferredLocation(start, count);
    return putInt(data, size, device >= 0 ? device : cudaInvalidDeviceId);
  }
  case cudaMemRangeAttributeLastPrefetchLocation:
  case cudaMemRangeAttributeLastPrefetchLocationId:
    return putInt(data, size, cudaInvalidDeviceId);
  case cudaMemRangeAttributeLastPrefetchLocationType:
    return putInt(data, size, cudaMemLocationTypeInvalid);
  case cudaMemRangeAttributeAccessedBy: {
    if (size == 0 || size % sizeof(int))
      return cudaErrorInvalidValue;
    std::vector<int> devices = advice.accessedBy(start, count);
    auto *out = static_cast<int *>(data);
    for (size_t i = 0; i < size / sizeof(int); ++i)
      out[i] = i < devices.size() ? devices[i] : cudaInvalidDeviceId;
    return cudaSuccess;
  }
  default:
    return cudaErrorInvalidValue;
  }
}

cudaError_t checkRange(const void *devPtr, size_t count) {
  if (!devPtr || !count || !isManaged(devPtr) ||
      !isManaged(static_cast<const char *>(devPtr) + count - 1))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                     cudaMemRangeAttribute attribute,
                                     const void *devPtr, size_t count) {
  if (!data)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = checkRange(devPtr, count))
    return record(err);
  return record(rangeAttribute(data, dataSize, rc::rt::enumNumber(attribute),
                               uintptr_t(devPtr), count));
}

cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                      cudaMemRangeAttribute *attributes,
                                      size_t numAttributes, const void *devPtr,
                                      size_t count) {
  if (!data || !dataSizes || !attributes || numAttributes == 0)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = checkRange(devPtr, count))
    return record(err);
  for (size_t i = 0; i < numAttributes; ++i) {
    if (!data[i])
      return record(cudaErrorInvalidValue);
    if (cudaError_t err = rangeAttribute(data[i], dataSizes[i],
                                         rc::rt::enumNumber(attributes[i]),
                                         uintptr_t(devPtr), count))
      return record(err);
  }
  return cudaSuccess;
}

} // extern "C"
