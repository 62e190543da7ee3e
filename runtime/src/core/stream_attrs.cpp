// cudaStreamSetAttribute / GetAttribute. Setting one is batched (the
// server sets it on the real stream, in order with the stream's other
// commands); reading one answers what was set, or CUDA's default, with no
// message.
#include "core/runtime.h"

#include "core/enum_number.h"

#include <cstring>

namespace rc::rt {

namespace {

bool takenByStreams(int attribute) {
  switch (attribute) {
  case cudaLaunchAttributeAccessPolicyWindow:
  case cudaLaunchAttributeSynchronizationPolicy:
  case cudaLaunchAttributePriority:
  case cudaLaunchAttributeMemSyncDomainMap:
  case cudaLaunchAttributeMemSyncDomain:
    return true;
  default:
    return false;
  }
}

} // namespace

cudaError_t Streams::streamSetAttribute(cudaStream_t stream, int attribute,
                                        const cudaLaunchAttributeValue *value,
                                        bool perThread) {
  if (!value || !takenByStreams(attribute))
    return cudaErrorInvalidValue;
  const cudaAccessPolicyWindow &w = value->accessPolicyWindow;
  if (attribute == cudaLaunchAttributeAccessPolicyWindow &&
      !(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t sid;
  if (cudaError_t err = connectedStreamLocked(stream, perThread, &sid))
    return err;
  if (attribute == cudaLaunchAttributeAccessPolicyWindow && w.num_bytes)
    if (cudaError_t err = rt_.checkDeviceRangeLocked("cudaStreamSetAttribute",
                                                     "access policy window",
                                                     w.base_ptr, w.num_bytes))
      return err;
  rt_.ensureDeviceLocked();
  int single = attribute == cudaLaunchAttributePriority ? value->priority
               : attribute == cudaLaunchAttributeSynchronizationPolicy
                   ? enumNumber(value->syncPolicy)
                   : enumNumber(value->memSyncDomain);
  rt_.appendLocked(wire::Command::StreamAttribute,
                   wire::CreateStreamAttribute(
                       rt_.batch_.fbb(), sid, attribute,
                       uint64_t(uintptr_t(w.base_ptr)), w.num_bytes, w.hitRatio,
                       enumNumber(w.hitProp), enumNumber(w.missProp), single,
                       value->memSyncDomainMap.default_,
                       value->memSyncDomainMap.remote)
                       .Union(),
                   {"cudaStreamSetAttribute", 0});
  rt_.afterAppendLocked();
  cudaLaunchAttributeValue &kept = attrs_[{sid, attribute}];
  kept = *value;
  if (attribute == cudaLaunchAttributePriority && forcedPriority_)
    kept.priority = *forcedPriority_; // what the server set
  return cudaSuccess;
}

cudaError_t Streams::streamGetAttribute(cudaStream_t stream, int attribute,
                                        cudaLaunchAttributeValue *value,
                                        bool perThread) {
  if (!value || !takenByStreams(attribute))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t sid;
  if (cudaError_t err = connectedStreamLocked(stream, perThread, &sid))
    return err;
  auto it = attrs_.find({sid, attribute});
  if (it != attrs_.end()) {
    *value = it->second;
    return cudaSuccess;
  }
  std::memset(value, 0, sizeof *value);
  if (attribute == cudaLaunchAttributeSynchronizationPolicy)
    value->syncPolicy = cudaSyncPolicyAuto;
  if (attribute == cudaLaunchAttributePriority) {
    auto s = created_.find(sid);
    value->priority = s != created_.end() ? s->second.priority : 0;
  }
  if (attribute == cudaLaunchAttributeMemSyncDomainMap)
    value->memSyncDomainMap.remote = 1;
  return cudaSuccess;
}

} // namespace rc::rt
