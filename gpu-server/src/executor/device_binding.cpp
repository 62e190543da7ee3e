#include "executor/device_binding.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

namespace rc::server {

DeviceBinding::DeviceBinding(Backend &backend,
                             std::unique_ptr<DeviceContext> first)
    : backend_(backend), contexts_(size_t(backend.deviceCount())) {
  contexts_[0] = std::move(first);
  ctx_ = threadCurrent_ = contexts_[0].get(); // createContext made it current
}

std::vector<int> DeviceBinding::devicesUsed() const {
  std::vector<int> used;
  for (size_t i = 0; i < contexts_.size(); ++i)
    if (contexts_[i])
      used.push_back(int(i));
  return used;
}

OpStatus DeviceBinding::checkDevice(int device) const {
  if (device >= 0 && device < int(contexts_.size()))
    return OpStatus::success();
  return OpStatus::fail(kErrInvalidDevice,
                        "device " + std::to_string(device) +
                            " does not exist (this server has " +
                            std::to_string(contexts_.size()) + " device(s))");
}

OpStatus DeviceBinding::contextOf(int device, DeviceContext **out) {
  OpStatus st = checkDevice(device);
  if (!st.ok())
    return st;
  std::unique_ptr<DeviceContext> &c = contexts_[size_t(device)];
  if (!c) {
    std::string error;
    c = backend_.createContext(device, &error);
    if (!c)
      return OpStatus::fail(kErrInitialization,
                            "cannot create a context on device " +
                                std::to_string(device) + ": " + error);
    threadCurrent_ = c.get();
  }
  *out = c.get();
  return st;
}

OpStatus DeviceBinding::bind(int device) {
  DeviceContext *c = nullptr;
  OpStatus st = contextOf(device, &c);
  if (!st.ok())
    return st;
  if (threadCurrent_ != c) {
    c->activate();
    threadCurrent_ = c;
  }
  ctx_ = c;
  bound_ = device;
  return st;
}

OpStatus DeviceBinding::bindStream(uint64_t handle, NativeHandle *out) {
  if (streamOverride_) { // a graph node runs on its graph's stream
    *out = streamOverride_->native;
    return bind(streamOverride_->device);
  }
  if (handle == 0 || handle == kLegacyStreamHandle) {
    *out = 0;
    return bind(current_); // each device has its own legacy stream
  }
  if (handle == kPerThreadStreamHandle) {
    *out = kPerThreadStream;
    return bind(current_);
  }
  auto it = streams_.find(handle);
  if (it == streams_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown stream " + hexAddress(handle));
  *out = it->second.native;
  return bind(it->second.device);
}

OpStatus DeviceBinding::event(uint64_t handle, NativeHandle *out) const {
  auto it = events_.find(handle);
  if (it == events_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown event " + hexAddress(handle));
  *out = it->second.native;
  return OpStatus::success();
}

OpStatus DeviceBinding::bindEvent(uint64_t handle, NativeHandle *out) {
  OpStatus st = event(handle, out);
  return st.ok() ? bind(events_.find(handle)->second.device) : st;
}

const OnDevice *DeviceBinding::findStream(uint64_t handle) const {
  auto it = streams_.find(handle);
  return it == streams_.end() ? nullptr : &it->second;
}

const OnDevice *DeviceBinding::findEvent(uint64_t handle) const {
  auto it = events_.find(handle);
  return it == events_.end() ? nullptr : &it->second;
}

OpStatus DeviceBinding::syncResult(OpStatus st) const {
  if (!st.ok() && !lastLaunch_.empty())
    st.detail += "; last launch in this session: " + lastLaunch_;
  return st;
}

} // namespace rc::server
