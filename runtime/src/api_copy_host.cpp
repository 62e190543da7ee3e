// Exported 2D / peer copies, peer-access queries, PCI bus ID, host
// registration and host functions (runtime_copy2d.cpp, runtime_host.cpp).
#include "global.h"

#include <cstdio>

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  return record(runtime().memcpy2D(dst, dpitch, src, spitch, width, height,
                                   kind, nullptr, false, false));
}
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind) {
  return record(runtime().memcpy2D(dst, dpitch, src, spitch, width, height,
                                   kind, nullptr, false, true));
}
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t s) {
  return record(runtime().memcpy2D(dst, dpitch, src, spitch, width, height,
                                   kind, s, true, false));
}
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height,
                                   cudaMemcpyKind kind, cudaStream_t s) {
  return record(runtime().memcpy2D(dst, dpitch, src, spitch, width, height,
                                   kind, s, true, true));
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src,
                           int srcDevice, size_t count) {
  return record(runtime().memcpyPeer(dst, dstDevice, src, srcDevice, count,
                                     nullptr, false, false));
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                int srcDevice, size_t count, cudaStream_t s) {
  return record(runtime().memcpyPeer(dst, dstDevice, src, srcDevice, count, s,
                                     true, false));
}

// A session sees one device: CUDA reports a device as no peer of itself,
// and enabling access to oneself is cudaErrorInvalidDevice.
static cudaError_t checkDevice(int device) {
  int count = 0;
  if (cudaError_t err = runtime().deviceCount(&count))
    return err;
  return device >= 0 && device < count ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccess, int device, int peer) {
  if (!canAccess)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = checkDevice(device))
    return record(err);
  if (cudaError_t err = checkDevice(peer))
    return record(err);
  *canAccess = 0; // device == peer is the only case with one device
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  if (flags != 0)
    return record(cudaErrorInvalidValue);
  if (cudaError_t err = checkDevice(peer))
    return record(err);
  int current = 0;
  runtime().getDevice(&current);
  return record(peer == current ? cudaErrorInvalidDevice
                                : cudaErrorPeerAccessUnsupported);
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  if (cudaError_t err = checkDevice(peer))
    return record(err);
  return record(cudaErrorPeerAccessNotEnabled);
}

// "dddd:bb:dd.0" from the device's PCI attributes, as cudart formats it.
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
  if (!pciBusId || len <= 0)
    return record(cudaErrorInvalidValue);
  int domain = 0, bus = 0, dev = 0;
  if (cudaError_t err =
          runtime().deviceAttribute(&domain, cudaDevAttrPciDomainId, device))
    return record(err);
  runtime().deviceAttribute(&bus, cudaDevAttrPciBusId, device);
  runtime().deviceAttribute(&dev, cudaDevAttrPciDeviceId, device);
  std::snprintf(pciBusId, size_t(len), "%04x:%02x:%02x.0", unsigned(domain),
                unsigned(bus), unsigned(dev));
  return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  return record(runtime().hostRegister(ptr, size, flags));
}
cudaError_t cudaHostUnregister(void *ptr) {
  return record(runtime().hostUnregister(ptr));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data) {
  return record(runtime().launchHostFunc(s, fn, data, false));
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn,
                                    void *data) {
  return record(runtime().launchHostFunc(s, fn, data, true));
}
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb,
                                  void *data, unsigned int flags) {
  return record(runtime().streamAddCallback(s, cb, data, flags, false));
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb,
                                       void *data, unsigned int flags) {
  return record(runtime().streamAddCallback(s, cb, data, flags, true));
}

} // extern "C"
