// Exported device / error / version calls. Answered locally from the
// handshake snapshot, except the two synchronizations.
#include "api/device_settings.h"
#include "api/global.h"
#include "core/enum_number.h"
#include "core/unsupported.h"

using rc::rt::DeviceSettings;
using rc::rt::record;
using rc::rt::runtime;

namespace {
int currentDevice() {
  int device = 0;
  runtime().getDevice(&device);
  return device;
}
} // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int *count) {
  return record(runtime().deviceCount(count));
}

cudaError_t cudaGetDevice(int *device) {
  return record(runtime().getDevice(device));
}

cudaError_t cudaSetDevice(int device) {
  return record(runtime().setDevice(device));
}

// cuda_runtime_api.h (12.x) #defines cudaGetDeviceProperties to the _v2
// name, so this defines cudaGetDeviceProperties_v2 (the 12.x layout).
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  return record(runtime().deviceProperties(prop, device));
}
#undef cudaGetDeviceProperties
// The unsuffixed symbol is what code compiled against CUDA 11 or CUDA 13
// headers calls; both use a cudaDeviceProp layout other than 12.4's (13's is
// 1008 bytes, 12.4's 1032), so writing ours would overrun the caller's
// struct. Refuse clearly instead of corrupting its stack.
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int) {
  __rc_report_unsupported(
      "cudaGetDeviceProperties without the _v2 suffix (the program was "
      "compiled against CUDA headers other than 12.x, e.g. CUDA 13 from "
      "/usr/local/include; rebuild it with remote-clang's CUDA 12.4 headers)",
      "runtime");
  return record(cudaErrorNotSupported);
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr,
                                   int device) {
  return record(runtime().deviceAttribute(value, int(attr), device));
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = rc::rt::lastError();
  rc::rt::lastError() = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return rc::rt::lastError(); }

cudaError_t cudaRuntimeGetVersion(int *version) {
  if (!version)
    return record(cudaErrorInvalidValue);
  *version = CUDART_VERSION; // 12040: the headers we implement
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version) {
  if (!version)
    return record(cudaErrorInvalidValue);
  // The remote driver is at least as new as the runtime we implement.
  *version = CUDART_VERSION;
  return cudaSuccess;
}

// Scheduling and cache hints change no result across the network: checked,
// kept per device and read back (api/device_settings.h).
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  return record(DeviceSettings::instance().setFlags(currentDevice(), flags));
}
cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  if (!flags)
    return record(cudaErrorInvalidValue);
  *flags = DeviceSettings::instance().flags(currentDevice());
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  return record(DeviceSettings::instance().setCacheConfig(
      currentDevice(), rc::rt::enumNumber(config)));
}
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *config) {
  if (!config)
    return record(cudaErrorInvalidValue);
  *config = DeviceSettings::instance().cacheConfig(currentDevice());
  return cudaSuccess;
}
// Shared memory banks are four bytes wide on every GPU since Volta, where
// the setting has no effect; CUDA accepts and ignores it there too.
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config) {
  int number = rc::rt::enumNumber(config);
  if (number < cudaSharedMemBankSizeDefault ||
      number > cudaSharedMemBankSizeEightByte)
    return record(cudaErrorInvalidValue);
  return cudaSuccess;
}
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *config) {
  if (!config)
    return record(cudaErrorInvalidValue);
  *config = cudaSharedMemBankSizeFourByte;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  return record(runtime().deviceSynchronize());
}

cudaError_t cudaDeviceReset(void) { return record(runtime().deviceReset()); }

// cuda_profiler_api.h
cudaError_t cudaProfilerStart(void) {
  return record(runtime().setProfiling(true));
}
cudaError_t cudaProfilerStop(void) {
  return record(runtime().setProfiling(false));
}

cudaError_t cudaCtxResetPersistingL2Cache(void) {
  return record(runtime().resetPersistingL2());
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  return record(runtime().deviceLimit(int(limit), &value, /*set=*/true));
}
cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit) {
  return record(runtime().deviceLimit(int(limit), value, /*set=*/false));
}

cudaError_t cudaMemGetInfo(size_t *freeBytes, size_t *totalBytes) {
  return record(runtime().memGetInfo(freeBytes, totalBytes));
}

} // extern "C"
