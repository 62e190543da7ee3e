// Device selection and device-level queries the client answers itself,
// from the handshake's snapshot of the session's devices: which device
// best matches a cudaDeviceProp, which device a PCI bus ID names, the
// valid-device list, cudaInitDevice, and peer attributes as far as the
// snapshot knows them.
#include "api/device_settings.h"
#include "api/global.h"
#include "core/enum_number.h"
#include "core/unsupported.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using rc::rt::DeviceSettings;
using rc::rt::record;
using rc::rt::runtime;

namespace {

cudaError_t checkDevice(int device) {
  int count = 0;
  if (cudaError_t err = runtime().deviceCount(&count))
    return err;
  return device >= 0 && device < count ? cudaSuccess : cudaErrorInvalidDevice;
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  runtime().deviceAttribute(&value, int(attr), device);
  return value;
}

// A PCI bus ID as cudaDeviceGetPCIBusId writes it, [domain:]bus:device
// [.function], in hex; false when it is none.
bool parseBusId(const char *text, unsigned *domain, unsigned *bus,
                unsigned *device) {
  unsigned a = 0, b = 0, c = 0, function = 0;
  int used = 0;
  size_t n = std::strlen(text);
  if (std::sscanf(text, "%x:%x:%x%n", &a, &b, &c, &used) == 3) {
    *domain = a, *bus = b, *device = c;
  } else if (std::sscanf(text, "%x:%x%n", &a, &b, &used) == 2) {
    *domain = 0, *bus = a, *device = b;
  } else {
    return false;
  }
  const char *rest = text + used;
  if (*rest == '.' && std::sscanf(rest, ".%x%n", &function, &used) == 1)
    rest += used;
  return size_t(rest - text) == n;
}

} // namespace

extern "C" {

// The device CUDA would pick for `prop`: of those whose compute capability
// is at least the one asked for (all, when none is asked for), the one of
// the lowest such capability, then the most multiprocessors, then the
// lowest ordinal. The rest of `prop` is not compared, as CUDA compares
// only what a device can meet.
cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *prop) {
  if (!device || !prop)
    return record(cudaErrorInvalidValue);
  int count = 0;
  if (cudaError_t err = runtime().deviceCount(&count))
    return record(err);
  int best = -1, bestCc = 0, bestSms = 0;
  int wantCc = prop->major * 10 + prop->minor;
  for (int d = 0; d < count; ++d) {
    int cc = attribute(cudaDevAttrComputeCapabilityMajor, d) * 10 +
             attribute(cudaDevAttrComputeCapabilityMinor, d);
    int sms = attribute(cudaDevAttrMultiProcessorCount, d);
    if (cc < wantCc)
      continue;
    if (best < 0 || cc < bestCc || (cc == bestCc && sms > bestSms))
      best = d, bestCc = cc, bestSms = sms;
  }
  // None meets the capability: the newest one comes closest.
  if (best < 0)
    for (int d = 0; d < count; ++d) {
      int cc = attribute(cudaDevAttrComputeCapabilityMajor, d) * 10 +
               attribute(cudaDevAttrComputeCapabilityMinor, d);
      if (best < 0 || cc > bestCc)
        best = d, bestCc = cc;
    }
  if (best < 0)
    return record(cudaErrorNoDevice);
  *device = best;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
  unsigned domain, bus, dev;
  if (!device || !pciBusId || !parseBusId(pciBusId, &domain, &bus, &dev))
    return record(cudaErrorInvalidValue);
  int count = 0;
  if (cudaError_t err = runtime().deviceCount(&count))
    return record(err);
  for (int d = 0; d < count; ++d)
    if (unsigned(attribute(cudaDevAttrPciDomainId, d)) == domain &&
        unsigned(attribute(cudaDevAttrPciBusId, d)) == bus &&
        unsigned(attribute(cudaDevAttrPciDeviceId, d)) == dev) {
      *device = d;
      return cudaSuccess;
    }
  return record(cudaErrorInvalidDevice);
}

// Every device of the session can run work, so the first of the list is
// the one CUDA would make current: it becomes the calling thread's device.
cudaError_t cudaSetValidDevices(int *devices, int len) {
  if (len < 0 || (len > 0 && !devices))
    return record(cudaErrorInvalidValue);
  for (int i = 0; i < len; ++i)
    if (cudaError_t err = checkDevice(devices[i]))
      return record(err);
  return len ? record(runtime().setDevice(devices[0])) : cudaSuccess;
}

// The session's context of each device exists from the handshake on:
// initializing one is checking it, and taking its flags when given.
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags,
                           unsigned int flags) {
  if (flags & ~unsigned(cudaInitDeviceFlagsAreValid))
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = checkDevice(device))
    return record(err);
  if (flags & cudaInitDeviceFlagsAreValid)
    return record(DeviceSettings::instance().setFlags(device, deviceFlags));
  return cudaSuccess;
}

// Every GPU CUDA 12 runs on computes in double precision: nothing to
// convert, as CUDA does on them.
cudaError_t cudaSetDoubleForDevice(double *d) {
  return record(d ? cudaSuccess : cudaErrorInvalidValue);
}
cudaError_t cudaSetDoubleForHost(double *d) {
  return record(d ? cudaSuccess : cudaErrorInvalidValue);
}

// Whether a peer link is there comes with the handshake; without one
// every attribute of the pair is 0, as the driver says. How fast a link
// is, and what it carries (atomics, arrays), the snapshot does not know:
// asked of a pair with peer access, those refuse by name.
cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr attr,
                                      int srcDevice, int dstDevice) {
  if (!value)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = checkDevice(srcDevice))
    return record(err);
  if (cudaError_t err = checkDevice(dstDevice))
    return record(err);
  if (srcDevice == dstDevice)
    return record(cudaErrorInvalidDevice);
  int number = rc::rt::enumNumber(attr);
  if (number < cudaDevP2PAttrPerformanceRank ||
      number > cudaDevP2PAttrCudaArrayAccessSupported)
    return record(cudaErrorInvalidValue);
  int access = 0;
  if (cudaError_t err = runtime().canAccessPeer(&access, srcDevice, dstDevice))
    return record(err);
  if (number == cudaDevP2PAttrAccessSupported || !access) {
    *value = number == cudaDevP2PAttrAccessSupported ? access : 0;
    return cudaSuccess;
  }
  return record(rc::rt::reportUnsupported(
      "cudaDeviceGetP2PAttribute (the performance rank, atomics or array "
      "access of a peer link)"));
}

} // extern "C"
