// Streams and events (class Streams, streams.h): client-chosen handle IDs
// (creation costs no round trip), the legacy / per-thread default stream
// mapping, and the sync calls.
#include "core/handle.h"
#include "core/runtime.h"

#include <algorithm>
#include <cstdio>

namespace rc::rt {

// Stream 0 on the wire is the legacy default stream. cudaStreamPerThread,
// and stream 0 of a --default-stream per-thread (_ptsz) call, is a real
// stream created lazily for the calling thread.
cudaError_t Streams::wireStreamLocked(cudaStream_t s, bool perThread,
                                      uint64_t *out) {
  if (s == cudaStreamLegacy || (s == nullptr && !perThread)) {
    *out = 0;
    return cudaSuccess;
  }
  if (s == cudaStreamPerThread || s == nullptr) {
    auto key = std::make_pair(std::this_thread::get_id(), threadDevice());
    auto it = perThread_.find(key);
    if (it != perThread_.end()) {
      *out = it->second;
      return cudaSuccess;
    }
    uint64_t id = rt_.nextHandle_++;
    rt_.ensureDeviceLocked(); // created on the thread's device
    // Flags 0: the per-thread stream synchronizes with the legacy stream.
    rt_.appendLocked(
        wire::Command::StreamCreate,
        wire::CreateStreamCreate(rt_.batch_.fbb(), id, 0, 0).Union(),
        {"cudaStreamPerThread (created on first use)", 0});
    perThread_[key] = id;
    *out = id;
    return cudaSuccess;
  }
  uint64_t id = handleId(s);
  if (!created_.count(id))
    return cudaErrorInvalidResourceHandle;
  *out = id;
  return cudaSuccess;
}

cudaError_t Streams::wireStream(cudaStream_t s, bool perThread, uint64_t *out) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  return connectedStreamLocked(s, perThread, out);
}

cudaError_t Streams::wireEventLocked(cudaEvent_t e, uint64_t *out) {
  uint64_t id = handleId(e);
  if (!e || !events_.count(id))
    return cudaErrorInvalidResourceHandle;
  *out = id;
  return cudaSuccess;
}

// The connection, and the wire ID of stream `s` (wireStreamLocked).
cudaError_t Streams::connectedStreamLocked(cudaStream_t s, bool perThread,
                                           uint64_t *out) {
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  return wireStreamLocked(s, perThread, out);
}

void Streams::destroyAllLocked(const char *call) {
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  for (const auto &s : created_)
    rt_.appendLocked(wire::Command::StreamDestroy,
                     wire::CreateStreamDestroy(fbb, s.first).Union(),
                     {call, 0});
  for (const auto &s : perThread_)
    rt_.appendLocked(wire::Command::StreamDestroy,
                     wire::CreateStreamDestroy(fbb, s.second).Union(),
                     {call, 0});
  for (const auto &e : events_)
    rt_.appendLocked(wire::Command::EventDestroy,
                     wire::CreateEventDestroy(fbb, e.first).Union(), {call, 0});
  created_.clear();
  perThread_.clear();
  events_.clear();
}

cudaError_t Streams::streamCreate(cudaStream_t *stream, unsigned flags,
                                  int priority) {
  if (!stream)
    return cudaErrorInvalidValue;
  if (flags & ~unsigned(cudaStreamNonBlocking))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  uint64_t id = rt_.nextHandle_++;
  rt_.appendLocked(
      wire::Command::StreamCreate,
      wire::CreateStreamCreate(rt_.batch_.fbb(), id, flags, priority).Union(),
      {"cudaStreamCreate", 0});
  created_[id] = {flags, forcedPriority_.value_or(
                             std::clamp(priority, kGreatestStreamPriority, 0))};
  *stream = reinterpret_cast<cudaStream_t>(uintptr_t(id));
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Streams::streamFlagsAndPriority(cudaStream_t stream,
                                            unsigned *flags, int *priority) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t id = handleId(stream);
  if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    *flags = 0;
    *priority = 0;
    return cudaSuccess;
  }
  auto it = created_.find(id);
  if (it == created_.end())
    return cudaErrorInvalidResourceHandle;
  *flags = it->second.flags;
  *priority = it->second.priority;
  return cudaSuccess;
}

cudaError_t Streams::streamDestroy(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.unavailableLocked())
    return err;
  uint64_t id = handleId(stream);
  if (!created_.erase(id))
    return cudaErrorInvalidResourceHandle;
  rt_.appendLocked(wire::Command::StreamDestroy,
                   wire::CreateStreamDestroy(rt_.batch_.fbb(), id).Union(),
                   {"cudaStreamDestroy", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Streams::streamSynchronize(cudaStream_t stream, bool perThread) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t id;
  if (cudaError_t err = connectedStreamLocked(stream, perThread, &id))
    return err;
  if (cudaError_t err =
          rt_.graphs_.refuseInCaptureLocked(id, "cudaStreamSynchronize"))
    return err;
  rt_.ensureDeviceLocked();
  if (rt_.syncFoldsIntoReadbackLocked(id))
    return rt_.downloadManagedLocked(
        rt_.waitForReadbackLocked("cudaStreamSynchronize"));
  auto cmd = wire::CreateStreamSynchronize(rt_.batch_.fbb(), id).Union();
  if (rt_.syncElidableLocked())
    return rt_.downloadManagedLocked(rt_.elideSyncLocked(
        wire::Command::StreamSynchronize, cmd, "cudaStreamSynchronize"));
  rt_.appendLocked(wire::Command::StreamSynchronize, cmd,
                   {"cudaStreamSynchronize", 0});
  return rt_.downloadManagedLocked(rt_.roundTripLocked({}, /*sync=*/true));
}

cudaError_t Streams::streamQuery(cudaStream_t stream, bool perThread) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  uint64_t id;
  if (cudaError_t err = connectedStreamLocked(stream, perThread, &id))
    return err;
  if (cudaError_t err =
          rt_.graphs_.refuseInCaptureLocked(id, "cudaStreamQuery"))
    return err;
  rt_.ensureDeviceLocked();
  return rt_.downloadManagedLocked(
      rt_.queryLocked(wire::Command::StreamQuery,
                      wire::CreateStreamQuery(rt_.batch_.fbb(), id).Union(),
                      "cudaStreamQuery"));
}

cudaError_t Streams::streamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                     unsigned flags, bool perThread) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t sid, eid;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  bool absorbed = false; // joined a capture (graph_state.cpp)
  if (cudaError_t err =
          rt_.graphs_.stateLocked().streamWaitsEvent(sid, eid, &absorbed))
    return err;
  if (absorbed)
    return cudaSuccess;
  rt_.ensureDeviceLocked();
  rt_.appendLocked(
      wire::Command::StreamWaitEvent,
      wire::CreateStreamWaitEvent(rt_.batch_.fbb(), sid, eid, flags).Union(),
      {"cudaStreamWaitEvent", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Streams::eventCreate(cudaEvent_t *event, unsigned flags) {
  if (!event)
    return cudaErrorInvalidValue;
  const unsigned known =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~known)
    return cudaErrorInvalidValue;
  if (flags & cudaEventInterprocess)
    return cudaErrorNotSupported; // IPC across the wire makes no sense
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  uint64_t id = rt_.nextHandle_++;
  rt_.appendLocked(wire::Command::EventCreate,
                   wire::CreateEventCreate(rt_.batch_.fbb(), id, flags).Union(),
                   {"cudaEventCreate", 0});
  events_[id] = flags;
  *event = reinterpret_cast<cudaEvent_t>(uintptr_t(id));
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Streams::eventDestroy(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.unavailableLocked())
    return err;
  uint64_t id = handleId(event);
  if (!event || !events_.erase(id))
    return cudaErrorInvalidResourceHandle;
  rt_.graphs_.stateLocked().eventDestroyed(id);
  rt_.appendLocked(wire::Command::EventDestroy,
                   wire::CreateEventDestroy(rt_.batch_.fbb(), id).Union(),
                   {"cudaEventDestroy", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Streams::eventRecord(cudaEvent_t event, cudaStream_t stream,
                                 bool perThread) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t eid, sid;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  if (rt_.graphs_.stateLocked().eventRecorded(eid, sid))
    return cudaSuccess; // marks a point of the capture, for joins
  rt_.ensureDeviceLocked();
  rt_.appendLocked(wire::Command::EventRecord,
                   wire::CreateEventRecord(rt_.batch_.fbb(), eid, sid).Union(),
                   {"cudaEventRecord", 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Streams::eventSynchronize(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t eid;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  if (rt_.graphs_.stateLocked().eventCaptured(eid))
    return cudaErrorCapturedEvent;
  rt_.appendLocked(wire::Command::EventSynchronize,
                   wire::CreateEventSynchronize(rt_.batch_.fbb(), eid).Union(),
                   {"cudaEventSynchronize", 0});
  return rt_.downloadManagedLocked(rt_.roundTripLocked({}, /*sync=*/true));
}

cudaError_t Streams::eventQuery(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t eid;
  if (cudaError_t err = wireEventLocked(event, &eid))
    return err;
  if (rt_.graphs_.stateLocked().eventCaptured(eid))
    return cudaErrorCapturedEvent;
  return rt_.downloadManagedLocked(rt_.queryLocked(
      wire::Command::EventQuery,
      wire::CreateEventQuery(rt_.batch_.fbb(), eid).Union(), "cudaEventQuery"));
}

cudaError_t Streams::eventElapsedTime(float *ms, cudaEvent_t start,
                                      cudaEvent_t end) {
  if (!ms)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t a, b;
  if (cudaError_t err = wireEventLocked(start, &a))
    return err;
  if (cudaError_t err = wireEventLocked(end, &b))
    return err;
  if ((events_[a] | events_[b]) & cudaEventDisableTiming)
    return cudaErrorInvalidResourceHandle;
  double value = 0;
  if (cudaError_t err = rt_.askLocked(
          wire::Command::EventElapsedTime,
          wire::CreateEventElapsedTime(rt_.batch_.fbb(), a, b).Union(),
          "cudaEventElapsedTime", nullptr, &value))
    return err;
  *ms = float(value);
  return cudaSuccess;
}

} // namespace rc::rt
