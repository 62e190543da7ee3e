// Default DeviceContext implementations of the optional operations (function
// attributes, driver VMM, peer access): a backend that lacks one fails by name
// instead of every backend having to spell out the refusal.
#include "rc/server/backend.h"
#include "rc/server/errors.h"

#include <new>

namespace rc::server {

namespace {
OpStatus unsupported(const char *what) {
  return OpStatus::fail(kErrNotSupported, std::string(what) +
                                              " is not supported by this "
                                              "rc-server backend");
}
} // namespace

OpStatus DeviceContext::hostAlloc(uint64_t size, uint8_t **host) {
  *host = new (std::nothrow) uint8_t[size];
  return *host ? OpStatus::success()
               : OpStatus::fail(kErrMemoryAllocation,
                                "cannot allocate " + std::to_string(size) +
                                    " bytes of host memory");
}

void DeviceContext::hostFree(uint8_t *host) { delete[] host; }

OpStatus DeviceContext::copyH2DFromHostAlloc(uint64_t dst, const uint8_t *src,
                                             uint64_t size,
                                             NativeHandle stream) {
  return copyH2D(dst, src, size, stream);
}

OpStatus DeviceContext::hostRegister(uint8_t *, uint64_t) {
  return OpStatus::success();
}

void DeviceContext::hostUnregister(uint8_t *) {}

OpStatus DeviceContext::copyD2HRegistered(uint8_t *dst, uint64_t src,
                                          uint64_t size, NativeHandle stream) {
  return copyD2H(dst, src, size, stream);
}

OpStatus DeviceContext::copyD2HToHostAlloc(uint8_t *dst, uint64_t src,
                                           uint64_t size, NativeHandle stream) {
  return copyD2H(dst, src, size, stream);
}

OpStatus DeviceContext::readD2H(uint64_t src, uint64_t size,
                                NativeHandle stream,
                                const ChunkConsumer &consume, uint64_t) {
  std::vector<uint8_t> bytes(size);
  OpStatus st = copyD2H(bytes.data(), src, size, stream);
  if (st.ok())
    consume(bytes.data(), 0, size);
  return st;
}

OpStatus DeviceContext::setKernelAttribute(const KernelInfo &, int, int) {
  return unsupported("cudaFuncSetAttribute");
}
OpStatus DeviceContext::clusterOccupancy(const KernelInfo &,
                                         const ClusterQuery &q, int *) {
  return unsupported(q.potentialSize ? "cudaOccupancyMaxPotentialClusterSize"
                                     : "cudaOccupancyMaxActiveClusters");
}
OpStatus DeviceContext::memAddressReserve(uint64_t, uint64_t, uint64_t *) {
  return unsupported("cuMemAddressReserve");
}
OpStatus DeviceContext::memAddressFree(uint64_t, uint64_t) {
  return unsupported("cuMemAddressFree");
}
OpStatus DeviceContext::memCreate(uint64_t, bool, NativeHandle *, bool *) {
  return unsupported("cuMemCreate");
}
OpStatus DeviceContext::memRelease(NativeHandle) {
  return unsupported("cuMemRelease");
}
OpStatus DeviceContext::memMap(uint64_t, uint64_t, uint64_t, NativeHandle) {
  return unsupported("cuMemMap");
}
OpStatus DeviceContext::memUnmap(uint64_t, uint64_t) {
  return unsupported("cuMemUnmap");
}
OpStatus DeviceContext::memSetAccess(uint64_t, uint64_t,
                                     const std::vector<int> &) {
  return unsupported("cuMemSetAccess");
}
OpStatus DeviceContext::copyPeer(uint64_t, DeviceContext &, uint64_t,
                                 DeviceContext &, uint64_t, NativeHandle) {
  return unsupported("cudaMemcpyPeerAsync");
}
OpStatus DeviceContext::setProfiling(bool) { return OpStatus::success(); }
OpStatus DeviceContext::streamSetAttribute(NativeHandle,
                                           const StreamAttributeValue &) {
  return unsupported("cudaStreamSetAttribute");
}

OpStatus DeviceContext::resetPersistingL2() {
  return unsupported("cudaCtxResetPersistingL2Cache");
}

OpStatus DeviceContext::setLimit(int, uint64_t) {
  return unsupported("cudaDeviceSetLimit");
}
OpStatus DeviceContext::getLimit(int, uint64_t *) {
  return unsupported("cudaDeviceGetLimit");
}

OpStatus DeviceContext::setPeerAccess(DeviceContext &, bool) {
  return unsupported("cudaDeviceEnablePeerAccess");
}

OpStatus Backend::loadModule(const uint8_t *, size_t, NativeHandle *) {
  return unsupported("cuModuleLoadData");
}

void Backend::releaseModule(NativeHandle) {}

OpStatus Backend::moduleKernel(NativeHandle, const std::string &,
                               KernelInfo *) {
  return unsupported("cuModuleGetFunction");
}

} // namespace rc::server
