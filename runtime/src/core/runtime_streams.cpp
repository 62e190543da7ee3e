// Streams and events: client-chosen handle IDs (creation costs no round
// trip), the legacy / per-thread default stream mapping, and the sync calls.
#include "core/handle.h"
#include "core/runtime.h"

#include <algorithm>
#include <cstdio>

namespace rc::rt {

// Every command runs on the session's current device; a thread whose
// cudaSetDevice differs from the last one sent gets a SetDevice first, and
// managed memory the host wrote goes to the device before the command.
void Runtime::ensureDeviceLocked() {
  int dev = threadDevice();
  if (dev != sentDevice_) {
    appendLocked(wire::Command::SetDevice,
                 wire::CreateSetDevice(batch_.fbb(), dev).Union(),
                 {"cudaSetDevice", 0});
    sentDevice_ = dev;
  }
  uploadManagedLocked();
}

// Stream 0 on the wire is the legacy default stream. cudaStreamPerThread,
// and stream 0 of a --default-stream per-thread (_ptsz) call, is a real
// stream created lazily for the calling thread.
cudaError_t Runtime::wireStreamLocked(cudaStream_t s, bool perThread,
                                      uint64_t *out) {
  if (s == cudaStreamLegacy || (s == nullptr && !perThread)) {
    *out = 0;
    return cudaSuccess;
  }
  if (s == cudaStreamPerThread || s == nullptr) {
    auto key = std::make_pair(std::this_thread::get_id(), threadDevice());
    auto it = perThreadStreams_.find(key);
    if (it != perThreadStreams_.end()) {
      *out = it->second;
      return cudaSuccess;
    }
    uint64_t id = nextHandle_++;
    ensureDeviceLocked(); // created on the thread's device
    // Flags 0: the per-thread stream synchronizes with the legacy stream.
    appendLocked(wire::Command::StreamCreate,
                 wire::CreateStreamCreate(batch_.fbb(), id, 0, 0).Union(),
                 {"cudaStreamPerThread (created on first use)", 0});
    perThreadStreams_[key] = id;
    *out = id;
    return cudaSuccess;
  }
  uint64_t id = handleId(s);
  if (!streams_.count(id))
    return cudaErrorInvalidResourceHandle;
  *out = id;
  return cudaSuccess;
}

cudaError_t Runtime::wireStream(cudaStream_t s, bool perThread, uint64_t *out) {
  std::lock_guard<std::mutex> lock(mu_);
  return connectedStreamLocked(s, perThread, out);
}

cudaError_t Runtime::wireEventLocked(cudaEvent_t e, uint64_t *out) {
  uint64_t id = handleId(e);
  if (!e || !events_.count(id))
    return cudaErrorInvalidResourceHandle;
  *out = id;
  return cudaSuccess;
}

cudaError_t Runtime::streamCreate(cudaStream_t *stream, unsigned flags,
                                  int priority) {
  if (!stream)
    return cudaErrorInvalidValue;
  if (flags & ~unsigned(cudaStreamNonBlocking))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  uint64_t id = nextHandle_++;
  appendLocked(
      wire::Command::StreamCreate,
      wire::CreateStreamCreate(batch_.fbb(), id, flags, priority).Union(),
      {"cudaStreamCreate", 0});
  streams_[id] = {flags, forcedStreamPriority_.value_or(
                             std::clamp(priority, kGreatestStreamPriority, 0))};
  *stream = reinterpret_cast<cudaStream_t>(uintptr_t(id));
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::streamFlagsAndPriority(cudaStream_t stream,
                                            unsigned *flags, int *priority) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = handleId(stream);
  if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    *flags = 0;
    *priority = 0;
    return cudaSuccess;
  }
  auto it = streams_.find(id);
  if (it == streams_.end())
    return cudaErrorInvalidResourceHandle;
  *flags = it->second.flags;
  *priority = it->second.priority;
  return cudaSuccess;
}

cudaError_t Runtime::streamDestroy(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = unavailableLocked())
    return err;
  uint64_t id = handleId(stream);
  if (!streams_.erase(id))
    return cudaErrorInvalidResourceHandle;
  appendLocked(wire::Command::StreamDestroy,
               wire::CreateStreamDestroy(batch_.fbb(), id).Union(),
               {"cudaStreamDestroy", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::streamSynchronize(cudaStream_t stream, bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id;
  if (cudaError_t err = connectedStreamLocked(stream, perThread, &id))
    return err;
  if (cudaError_t err = refuseInCaptureLocked(id, "cudaStreamSynchronize"))
    return err;
  ensureDeviceLocked();
  if (syncFoldsIntoReadbackLocked(id))
    return downloadManagedLocked(
        waitForReadbackLocked("cudaStreamSynchronize"));
  auto cmd = wire::CreateStreamSynchronize(batch_.fbb(), id).Union();
  if (syncElidableLocked())
    return downloadManagedLocked(elideSyncLocked(
        wire::Command::StreamSynchronize, cmd, "cudaStreamSynchronize"));
  appendLocked(wire::Command::StreamSynchronize, cmd,
               {"cudaStreamSynchronize", 0});
  return downloadManagedLocked(roundTripLocked({}, /*sync=*/true));
}

cudaError_t Runtime::streamQuery(cudaStream_t stream, bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id;
  if (cudaError_t err = connectedStreamLocked(stream, perThread, &id))
    return err;
  if (cudaError_t err = refuseInCaptureLocked(id, "cudaStreamQuery"))
    return err;
  ensureDeviceLocked();
  return downloadManagedLocked(queryLocked(
      wire::Command::StreamQuery,
      wire::CreateStreamQuery(batch_.fbb(), id).Union(), "cudaStreamQuery"));
}

// A query is a round trip whose result code is cudaSuccess or
cudaError_t Runtime::askLocked(wire::Command type,
                               flatbuffers::Offset<void> cmd, const char *call,
                               uint64_t *addr, double *value) {
  bool filled = false;
  Sink sink;
  sink.index = appendLocked(type, cmd, {call, 0});
  sink.addr = addr;
  sink.value = value;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  return filled ? cudaSuccess : cudaErrorUnknown;
}

// cudaErrorNotReady; like cudart, it also reports errors of earlier work.
cudaError_t Runtime::queryLocked(wire::Command type,
                                 flatbuffers::Offset<void> cmd,
                                 const char *call) {
  int code = 0;
  bool filled = false;
  Sink sink;
  sink.index = appendLocked(type, cmd, {call, 0});
  sink.code = &code;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (cudaError_t err = takePendingErrorLocked())
    return err;
  return filled ? errorFromWire(code) : cudaErrorUnknown;
}

cudaError_t Runtime::streamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                     unsigned flags, bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t sid, eid;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  bool absorbed = false; // joined a capture (graph_state.cpp)
  if (cudaError_t err = graphs_.streamWaitsEvent(sid, eid, &absorbed))
    return err;
  if (absorbed)
    return cudaSuccess;
  ensureDeviceLocked();
  appendLocked(
      wire::Command::StreamWaitEvent,
      wire::CreateStreamWaitEvent(batch_.fbb(), sid, eid, flags).Union(),
      {"cudaStreamWaitEvent", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::eventCreate(cudaEvent_t *event, unsigned flags) {
  if (!event)
    return cudaErrorInvalidValue;
  const unsigned known =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~known)
    return cudaErrorInvalidValue;
  if (flags & cudaEventInterprocess)
    return cudaErrorNotSupported; // IPC across the wire makes no sense
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  ensureDeviceLocked();
  uint64_t id = nextHandle_++;
  appendLocked(wire::Command::EventCreate,
               wire::CreateEventCreate(batch_.fbb(), id, flags).Union(),
               {"cudaEventCreate", 0});
  events_[id] = flags;
  *event = reinterpret_cast<cudaEvent_t>(uintptr_t(id));
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::eventDestroy(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = unavailableLocked())
    return err;
  uint64_t id = handleId(event);
  if (!event || !events_.erase(id))
    return cudaErrorInvalidResourceHandle;
  graphs_.eventDestroyed(id);
  appendLocked(wire::Command::EventDestroy,
               wire::CreateEventDestroy(batch_.fbb(), id).Union(),
               {"cudaEventDestroy", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::eventRecord(cudaEvent_t event, cudaStream_t stream,
                                 bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t eid, sid;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  if (graphs_.eventRecorded(eid, sid))
    return cudaSuccess; // marks a point of the capture, for joins
  ensureDeviceLocked();
  appendLocked(wire::Command::EventRecord,
               wire::CreateEventRecord(batch_.fbb(), eid, sid).Union(),
               {"cudaEventRecord", 0});
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::eventSynchronize(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t eid;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  if (graphs_.eventCaptured(eid))
    return cudaErrorCapturedEvent;
  appendLocked(wire::Command::EventSynchronize,
               wire::CreateEventSynchronize(batch_.fbb(), eid).Union(),
               {"cudaEventSynchronize", 0});
  return downloadManagedLocked(roundTripLocked({}, /*sync=*/true));
}

cudaError_t Runtime::eventQuery(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t eid;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  if (graphs_.eventCaptured(eid))
    return cudaErrorCapturedEvent;
  return downloadManagedLocked(queryLocked(
      wire::Command::EventQuery,
      wire::CreateEventQuery(batch_.fbb(), eid).Union(), "cudaEventQuery"));
}

cudaError_t Runtime::eventElapsedTime(float *ms, cudaEvent_t start,
                                      cudaEvent_t end) {
  if (!ms)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t a, b;
  if (cudaError_t err = wireEventLocked(start, &a))
    return err;
  if (cudaError_t err = wireEventLocked(end, &b))
    return err;
  if ((events_[a] | events_[b]) & cudaEventDisableTiming)
    return cudaErrorInvalidResourceHandle;
  double value = 0;
  if (cudaError_t err =
          askLocked(wire::Command::EventElapsedTime,
                    wire::CreateEventElapsedTime(batch_.fbb(), a, b).Union(),
                    "cudaEventElapsedTime", nullptr, &value))
    return err;
  *ms = float(value);
  return cudaSuccess;
}

cudaError_t Runtime::deviceSynchronize() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  if (graphs_.anyCapture()) {
    // Would wait on capturing streams: illegal, and fatal to the captures.
    graphs_.invalidateAll();
    std::fprintf(stderr, "remote-clang: cudaDeviceSynchronize during stream "
                         "capture is not allowed; the capture is invalidated "
                         "(cudaErrorStreamCaptureUnsupported)\n");
    return cudaErrorStreamCaptureUnsupported;
  }
  ensureDeviceLocked();
  auto cmd = wire::CreateDeviceSynchronize(batch_.fbb()).Union();
  if (syncElidableLocked())
    return downloadManagedLocked(elideSyncLocked(
        wire::Command::DeviceSynchronize, cmd, "cudaDeviceSynchronize"));
  appendLocked(wire::Command::DeviceSynchronize, cmd,
               {"cudaDeviceSynchronize", 0});
  return downloadManagedLocked(roundTripLocked({}, /*sync=*/true));
}

} // namespace rc::rt
