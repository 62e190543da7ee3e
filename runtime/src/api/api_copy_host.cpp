// Exported 2D / peer copies, peer-access queries, PCI bus ID, host
// registration and host functions (runtime_copy2d.cpp, runtime_host.cpp).
#include "api/global.h"

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

// Peer access: answered from the handshake's table; a device is no peer of
// itself (enabling access to oneself is cudaErrorInvalidDevice).
cudaError_t cudaDeviceCanAccessPeer(int *canAccess, int device, int peer) {
  return record(runtime().canAccessPeer(canAccess, device, peer));
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  if (flags != 0)
    return record(cudaErrorInvalidValue);
  return record(runtime().setPeerAccess(peer, true));
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  return record(runtime().setPeerAccess(peer, false));
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
