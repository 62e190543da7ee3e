// The host test device: host memory behind fake device addresses, so the
// whole server (validation, copies, streams, events, sessions) can be tested
// without a GPU. Kernels are not executed; each launch is recorded. With
// several test devices each context holds its own device's memory: a copy
// to or from another device's memory works as a device-to-device (peer)
// copy, not on a host copy issued on another device's stream (a GPU with
// unified addressing allows that too).
#ifndef RC_SERVER_HOST_BACKEND_H
#define RC_SERVER_HOST_BACKEND_H

#include "rc/server/backend.h"

#include <atomic>
#include <functional>
#include <mutex>

namespace rc::server {

class ModuleLibrary;

// Fake device addresses start here: far from where Linux puts executables,
// heaps, libraries and stacks (0x55..., 0x7f...), so a host pointer passed
// by mistake never looks valid, and free in a client process, where managed
// memory's mirrors are mapped at device addresses (AddressSanitizer's heap
// is 0x500000000000-0x540000000000 with clang 19).
constexpr uint64_t kHostDeviceBase = 0x0000300000000000ULL;
// What a test device reports as its memory, and the most all sessions may
// allocate on the test devices together.
constexpr uint64_t kHostDeviceMemory = 16ULL << 30;

struct LaunchRecord {
  int device = 0; // backend device index
  uint64_t kernelId = 0;
  LaunchConfig config;
  std::vector<uint8_t> args;
  uint64_t syncsBefore = 0; // stream syncs waited for before this launch
  uint64_t waitsBefore = 0; // stream-waits-for-event issued before it
};

class HostBackend : public Backend {
public:
  // `devices` identical test devices, each able to access the others, with
  // `memory` bytes between them (a fuzzer keeps its inputs' copies small).
  explicit HostBackend(int devices = 1, uint64_t memory = kHostDeviceMemory);
  ~HostBackend() override;
  bool prepare(Registry &registry, std::string *error) override;
  int deviceCount() const override { return int(devices_.size()); }
  const DeviceDescription &device(int index) const override {
    return devices_[size_t(index)];
  }
  bool canAccessPeer(int device, int peer) const override {
    return device != peer;
  }
  std::unique_ptr<DeviceContext> createContext(int index,
                                               std::string *error) override;
  uint64_t bytesInUse() const override;
  // Modules are PTX text here (module_host.h): kernels are not run, their
  // layouts come from the `.entry` declarations.
  OpStatus loadModule(const uint8_t *image, size_t size,
                      NativeHandle *module) override;
  void releaseModule(NativeHandle module) override;
  OpStatus moduleKernel(NativeHandle module, const std::string &name,
                        KernelInfo *out) override;
  // Distinct module images loaded now, by all sessions (for tests).
  size_t modulesLoaded() const;
  uint64_t totalMemory() const { return memory_; }

  // Every launch of every session, in order (for tests).
  std::vector<LaunchRecord> launches() const;
  // Called on the launching thread at each launch (tests: what the CUDA
  // driver does there, such as writing device printf output).
  void onLaunch(std::function<void(const LaunchRecord &)> hook);
  // Called on the synchronizing thread at each device synchronization
  // (tests: where the CUDA driver writes what kernels printed since).
  void onDeviceSync(std::function<void(int device)> hook);
  void recordDeviceSync(int device);
  // Stream syncs waited for, cudaStreamWaitEvent and cudaEventRecord calls
  // so far, by every session (for tests).
  uint64_t streamSyncs() const { return streamSyncs_; }
  uint64_t streamWaits() const { return streamWaits_; }
  uint64_t eventRecords() const { return eventRecords_; }
  // The priority every stream was created with, in order (for tests).
  std::vector<int> streamPriorities() const;

  // Used by contexts. Fake addresses are handed out once each, below
  // kAddressLimit; past it both calls return 0 (out of memory) rather than
  // wrap around to addresses a live allocation may still hold.
  static constexpr uint64_t kAddressLimit = uint64_t(1) << 62;
  uint64_t reserve(uint64_t size); // fake address, or 0 when out of memory
  void release(uint64_t size);
  // Fake addresses only, no memory accounted (cuMemAddressReserve).
  uint64_t reserveAddressSpace(uint64_t size, uint64_t alignment);
  void record(LaunchRecord r);
  void recordStreamCreate(int priority);
  void recordStreamSync() { ++streamSyncs_; }
  void recordStreamWait() { ++streamWaits_; }
  void recordEventRecord() { ++eventRecords_; }

private:
  std::vector<DeviceDescription> devices_;
  mutable std::mutex mutex_;
  uint64_t memory_;
  uint64_t nextAddr_ = kHostDeviceBase;
  uint64_t inUse_ = 0;
  std::vector<LaunchRecord> launches_;
  std::vector<int> streamPriorities_;
  std::function<void(const LaunchRecord &)> onLaunch_;
  std::function<void(int)> onDeviceSync_;
  std::unique_ptr<ModuleLibrary> modules_;
  std::atomic<uint64_t> streamSyncs_{0};
  std::atomic<uint64_t> streamWaits_{0};
  std::atomic<uint64_t> eventRecords_{0};
};

} // namespace rc::server

#endif
