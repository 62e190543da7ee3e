// Which device a session's command runs on (docs/server-internals/devices.md,
// "Several GPUs"): the session's context per device, created on first use;
// the client's stream and event handles, each of which names a device; and
// the one context a command binds before it acts. Every command handler
// goes through here, so that a handle of one device is never used in the
// context of another.
#ifndef RC_SERVER_DEVICE_BINDING_H
#define RC_SERVER_DEVICE_BINDING_H

#include "rc/server/backend.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rc::server {

// Client stream handles with a fixed meaning (cudaStreamLegacy, which is
// stream 0, and cudaStreamPerThread).
constexpr uint64_t kLegacyStreamHandle = 1;
constexpr uint64_t kPerThreadStreamHandle = 2;

// A driver object and the device whose context made it.
struct OnDevice {
  NativeHandle native = 0;
  int device = 0;
};

class DeviceBinding {
public:
  // `first`: the session's context on device 0, created at Hello (and
  // current on this thread).
  DeviceBinding(Backend &backend, std::unique_ptr<DeviceContext> first);
  Backend &backend() const { return backend_; }

  // Every command runs on ctx(): the current device's context (SetDevice),
  // or the device of the stream, event, handle or memory it names; bind()
  // selects it and makes it current on this thread.
  OpStatus bind(int device);
  DeviceContext *ctx() const { return ctx_; }
  int bound() const { return bound_; }
  const DeviceDescription &boundDevice() const {
    return backend_.device(bound_);
  }
  // The device SetDevice chose (the CUDA runtime's current device).
  int current() const { return current_; }
  void makeBoundCurrent() { current_ = bound_; }
  // Device `device`'s context, created if it has none yet (which makes it
  // current: bind again before acting on another).
  OpStatus contextOf(int device, DeviceContext **out);
  OpStatus checkDevice(int device) const;
  size_t deviceCount() const { return contexts_.size(); }
  // Device `device`'s context if the session has one, else null.
  DeviceContext *existing(int device) const {
    return contexts_[size_t(device)].get();
  }
  // Devices this session has a context on, ascending.
  std::vector<int> devicesUsed() const;

  // Resolves a client stream and binds its device.
  OpStatus bindStream(uint64_t handle, NativeHandle *out);
  // Resolves a client event and binds its device.
  OpStatus bindEvent(uint64_t handle, NativeHandle *out);
  // Resolves a client event without binding (cross-device waits).
  OpStatus event(uint64_t handle, NativeHandle *out) const;
  // The session's streams and events by client handle (null: unknown).
  const OnDevice *findStream(uint64_t handle) const;
  void addStream(uint64_t handle, OnDevice s) { streams_[handle] = s; }
  void removeStream(uint64_t handle) { streams_.erase(handle); }
  const OnDevice *findEvent(uint64_t handle) const;
  void addEvent(uint64_t handle, OnDevice e) { events_[handle] = e; }
  void removeEvent(uint64_t handle) { events_.erase(handle); }

  // While set, every stream handle means `s` (a graph's nodes run on the
  // graph's stream, on the bound device); null again ends that.
  void overrideStreams(const OnDevice *s) { streamOverride_ = s; }
  const OnDevice *streamOverride() const { return streamOverride_; }
  // Every stream the session creates, or sets a priority on, runs at
  // `priority` whatever the client asks (its tenant's quota); none: as
  // asked.
  void forceStreamPriority(std::optional<int> priority) {
    streamPriority_ = priority;
  }
  int streamPriority(int asked) const {
    return streamPriority_.value_or(asked);
  }

  // What ran last on the session's devices ("kernel X"), which
  // syncResult() adds to errors that surface at a synchronization: a
  // kernel's fault is reported by whatever waits for it next.
  void noteLaunch(std::string what) { lastLaunch_ = std::move(what); }
  OpStatus syncResult(OpStatus st) const;

private:
  Backend &backend_;
  std::vector<std::unique_ptr<DeviceContext>> contexts_; // by device
  DeviceContext *ctx_ = nullptr;           // the bound device's context
  int bound_ = 0;                          // its device
  int current_ = 0;                        // SetDevice
  DeviceContext *threadCurrent_ = nullptr; // current on this thread
  std::unordered_map<uint64_t, OnDevice> streams_;
  std::unordered_map<uint64_t, OnDevice> events_;
  const OnDevice *streamOverride_ = nullptr;
  std::optional<int> streamPriority_;
  std::string lastLaunch_;
};

} // namespace rc::server

#endif
