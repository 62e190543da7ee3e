#include "executor/stream_commands.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <cuda.h>

namespace rc::server {

OpStatus StreamCommands::handle(const wire::StreamCreate &c, CommandAnswer &) {
  if (c.stream() <= kPerThreadStreamHandle || devices_.findStream(c.stream()))
    return OpStatus::fail(kErrInvalidValue,
                          "stream handle " + hexAddress(c.stream()) +
                              " is reserved or already in use");
  NativeHandle s = 0;
  OpStatus st = devices_.ctx()->streamCreate(
      c.flags(), devices_.streamPriority(c.priority()), &s);
  if (st.ok())
    devices_.addStream(c.stream(), OnDevice{s, devices_.bound()});
  return st;
}

OpStatus StreamCommands::handle(const wire::StreamDestroy &c, CommandAnswer &) {
  const OnDevice *found = devices_.findStream(c.stream());
  if (!found)
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown stream " + hexAddress(c.stream()));
  const OnDevice stream = *found;
  OpStatus st;
  if (!(st = devices_.bind(stream.device)).ok())
    return st;
  libraries_.forgetStream(reinterpret_cast<void *>(stream.native));
  if (!(st = devices_.ctx()->streamDestroy(stream.native)).ok())
    return st;
  sync_.forgetStream(c.stream(), stream.device);
  devices_.removeStream(c.stream());
  return st;
}

OpStatus StreamCommands::handle(const wire::StreamSynchronize &c,
                                CommandAnswer &) {
  NativeHandle s = 0;
  OpStatus st = devices_.bindStream(c.stream(), &s);
  if (!st.ok())
    return st;
  // Deferred: noteCommandDone() makes it a pending sync.
  return st;
}

OpStatus StreamCommands::handle(const wire::StreamQuery &c, CommandAnswer &a) {
  NativeHandle s = 0;
  OpStatus st = devices_.bindStream(c.stream(), &s);
  if (!st.ok())
    return st;
  st = devices_.ctx()->streamQuery(s);
  if (st.code == kErrNotReady)
    st = OpStatus::success(), a.result.code = kErrNotReady;
  if (st.ok())
    a.give();
  return devices_.syncResult(st);
}

OpStatus StreamCommands::handle(const wire::DeviceSynchronize &,
                                CommandAnswer &) {
  return devices_.syncResult(devices_.ctx()->deviceSynchronize());
}

OpStatus StreamCommands::handle(const wire::EventCreate &c, CommandAnswer &) {
  if (c.event() == 0 || devices_.findEvent(c.event()))
    return OpStatus::fail(kErrInvalidValue,
                          "event handle " + hexAddress(c.event()) +
                              " is reserved or already in use");
  NativeHandle e = 0;
  OpStatus st = devices_.ctx()->eventCreate(c.flags(), &e);
  if (st.ok())
    devices_.addEvent(c.event(), OnDevice{e, devices_.bound()});
  return st;
}

OpStatus StreamCommands::handle(const wire::EventDestroy &c, CommandAnswer &) {
  const OnDevice *event = devices_.findEvent(c.event());
  if (!event)
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown event " + hexAddress(c.event()));
  OpStatus st;
  if (!(st = devices_.bind(event->device)).ok() ||
      !(st = devices_.ctx()->eventDestroy(event->native)).ok())
    return st;
  devices_.removeEvent(c.event());
  return st;
}

OpStatus StreamCommands::handle(const wire::EventRecord &c, CommandAnswer &) {
  NativeHandle s = 0, e = 0;
  OpStatus st;
  if (!(st = devices_.event(c.event(), &e)).ok() ||
      !(st = devices_.bindStream(c.stream(), &s)).ok())
    return st;
  return devices_.ctx()->eventRecord(e, s);
}

OpStatus StreamCommands::handle(const wire::EventSynchronize &c,
                                CommandAnswer &) {
  NativeHandle e = 0;
  OpStatus st = devices_.bindEvent(c.event(), &e);
  if (!st.ok())
    return st;
  return devices_.syncResult(devices_.ctx()->eventSynchronize(e));
}

OpStatus StreamCommands::handle(const wire::EventQuery &c, CommandAnswer &a) {
  NativeHandle e = 0;
  OpStatus st = devices_.bindEvent(c.event(), &e);
  if (!st.ok())
    return st;
  st = devices_.ctx()->eventQuery(e);
  if (st.code == kErrNotReady)
    st = OpStatus::success(), a.result.code = kErrNotReady;
  if (st.ok())
    a.give();
  return devices_.syncResult(st);
}

OpStatus StreamCommands::handle(const wire::EventElapsedTime &c,
                                CommandAnswer &a) {
  NativeHandle e = 0, e2 = 0;
  OpStatus st;
  if (!(st = devices_.bindEvent(c.start(), &e)).ok() ||
      !(st = devices_.event(c.end(), &e2)).ok())
    return st;
  float ms = 0;
  if (!(st = devices_.ctx()->eventElapsed(e, e2, &ms)).ok())
    return st;
  a.result.value = ms;
  a.give();
  return st;
}

OpStatus StreamCommands::handle(const wire::StreamWaitEvent &c,
                                CommandAnswer &) {
  NativeHandle s = 0, e = 0;
  OpStatus st;
  // The event may be another device's: CUDA waits across devices.
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() ||
      !(st = devices_.event(c.event(), &e)).ok())
    return st;
  return devices_.ctx()->streamWaitEvent(s, e, c.flags());
}

OpStatus StreamCommands::handle(const wire::SetDevice &c, CommandAnswer &) {
  // Binding creates the device's context now, so a failure names this.
  OpStatus st = devices_.bind(c.device());
  if (st.ok())
    devices_.makeBoundCurrent();
  return st;
}

OpStatus StreamCommands::handle(const wire::PeerAccess &c, CommandAnswer &a) {
  *a.what =
      c.enable() ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess";
  return doPeerAccess(c);
}

OpStatus StreamCommands::handle(const wire::ProfilerControl &c,
                                CommandAnswer &a) {
  *a.what = c.start() ? "cudaProfilerStart" : "cudaProfilerStop";
  return devices_.ctx()->setProfiling(c.start());
}

OpStatus StreamCommands::handle(const wire::DeviceLimit &c, CommandAnswer &a) {
  *a.what = c.set() ? "cudaDeviceSetLimit" : "cudaDeviceGetLimit";
  OpStatus st;
  if (c.set() && !(st = devices_.ctx()->setLimit(c.limit(), c.value())).ok())
    return st;
  uint64_t value = 0;
  if (!(st = devices_.ctx()->getLimit(c.limit(), &value)).ok())
    return st;
  a.result.addr = value;
  a.give();
  return st;
}

OpStatus StreamCommands::doPeerAccess(const wire::PeerAccess &c) {
  OpStatus st = devices_.checkDevice(c.peer());
  if (!st.ok())
    return st;
  if (c.peer() == devices_.bound())
    return OpStatus::fail(kErrInvalidDevice, "a device is not its own peer");
  if (!devices_.backend().canAccessPeer(devices_.bound(), c.peer()))
    return OpStatus::fail(kErrPeerAccessUnsupported,
                          "device " + std::to_string(devices_.bound()) +
                              " cannot access device " +
                              std::to_string(c.peer()));
  DeviceContext *peer = nullptr, *self = devices_.ctx();
  if (!(st = devices_.contextOf(c.peer(), &peer)).ok() ||
      !(st = devices_.bind(devices_.bound())).ok())
    return st;
  return self->setPeerAccess(*peer, c.enable());
}

// The attributes a stream takes. An access policy window makes L2 keep
// lines of one range: the range must be the session's own memory.
OpStatus StreamCommands::handle(const wire::StreamAttribute &c,
                                CommandAnswer &) {
  NativeHandle s = 0;
  OpStatus st = devices_.bindStream(c.stream(), &s);
  if (!st.ok())
    return st;
  StreamAttributeValue v;
  v.attribute = c.attribute();
  switch (v.attribute) {
  case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    v.windowBase = c.window_base();
    v.windowBytes = c.window_bytes();
    v.hitRatio = c.hit_ratio();
    v.hitProperty = c.hit_property();
    v.missProperty = c.miss_property();
    if (!(v.hitRatio >= 0.0f && v.hitRatio <= 1.0f) || v.hitProperty < 0 ||
        v.hitProperty > 2 || v.missProperty < 0 || v.missProperty > 2)
      return OpStatus::fail(
          kErrInvalidValue,
          "access policy window: hit ratio outside [0, 1] or an "
          "unknown access property");
    if (v.windowBytes && !(st = memory_.checkRange("access policy window",
                                                   v.windowBase, v.windowBytes))
                              .ok())
      return st;
    break;
  case CU_STREAM_ATTRIBUTE_PRIORITY:
    v.value = devices_.streamPriority(c.value());
    break;
  case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
    v.value = c.value();
    break;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    v.domainDefault = c.domain_default();
    v.domainRemote = c.domain_remote();
    break;
  default:
    return OpStatus::fail(kErrInvalidValue, "attribute " +
                                                std::to_string(v.attribute) +
                                                " is not one a stream takes");
  }
  return devices_.ctx()->streamSetAttribute(s, v);
}

OpStatus StreamCommands::handle(const wire::ResetPersistingL2 &,
                                CommandAnswer &) {
  return devices_.ctx()->resetPersistingL2();
}

} // namespace rc::server
