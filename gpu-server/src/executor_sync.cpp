// Deferred stream syncs and their GPU-side fences (executor.h says why).
//
// The invariant while a sync on stream D is deferred: once D's work issued
// before the sync is done, everything the client issued before it is done.
// A command on D keeps it by stream order. A command on another stream U of
// the same device keeps it by waiting, on the GPU, for an event recorded on
// D, so no host wait is needed; a later sync on U moves the deferred sync
// there (U's work now implies D's). Only a command that may observe the host
// order, or a batch the client waits for, waits on the host.
#include "executor.h"

namespace rc::server {

namespace {
constexpr uint32_t kEventDisableTiming = 2; // cudaEventDisableTiming
} // namespace

bool Executor::commandStream(const wire::CommandEntry &c, uint64_t *stream) {
  using wire::Command;
  switch (c.cmd_type()) {
  case Command::MemcpyH2D:
    *stream = c.cmd_as_MemcpyH2D()->stream();
    return true;
  case Command::MemcpyD2H:
    *stream = c.cmd_as_MemcpyD2H()->stream();
    return true;
  case Command::MemcpyH2DRing:
    *stream = c.cmd_as_MemcpyH2DRing()->stream();
    return true;
  case Command::MemcpyD2D:
    *stream = c.cmd_as_MemcpyD2D()->stream();
    return true;
  case Command::Memset:
    *stream = c.cmd_as_Memset()->stream();
    return true;
  case Command::Launch:
    *stream = c.cmd_as_Launch()->stream();
    return true;
  case Command::GraphLaunch:
    *stream = c.cmd_as_GraphLaunch()->stream();
    return true;
  case Command::EventRecord:
    *stream = c.cmd_as_EventRecord()->stream();
    return true;
  case Command::StreamSynchronize:
    *stream = c.cmd_as_StreamSynchronize()->stream();
    return true;
  default:
    return false; // anything else may observe the host-side order
  }
}

OpStatus Executor::orderBehindDeferredSync(const wire::CommandEntry &c) {
  uint64_t stream = 0;
  if (!commandStream(c, &stream))
    return flushDeferredSync();
  if (stream != deferredSync_.stream)
    return fenceBehindDeferredSync(stream);
  // A further sync on the same stream replaces this one (deferSync).
  if (c.cmd_type() != wire::Command::StreamSynchronize)
    syncStreamBusy_ = true;
  return OpStatus::success();
}

OpStatus Executor::fenceBehindDeferredSync(uint64_t stream) {
  for (uint64_t s : fenced_)
    if (s == stream)
      return OpStatus::success();
  if (!fenceSyncs_ || (syncStreamBusy_ && !fenceRecorded_))
    return flushDeferredSync();
  // The other stream's device; an unknown stream fails in execute() later.
  NativeHandle other = 0;
  if (!bindStream(stream, &other).ok() || bound_ != deferredSync_.device)
    return flushDeferredSync();
  NativeHandle &event = fenceEvents_[size_t(bound_)];
  OpStatus st = OpStatus::success();
  if (!event)
    st = ctx_->eventCreate(kEventDisableTiming, &event);
  if (st.ok() && !fenceRecorded_)
    st = ctx_->eventRecord(event, deferredSync_.native);
  fenceRecorded_ = fenceRecorded_ || st.ok();
  if (st.ok())
    st = ctx_->streamWaitEvent(other, event, 0);
  if (!st.ok()) // the host wait reports what went wrong, if it persists
    return flushDeferredSync();
  fenced_.push_back(stream);
  if (metrics_)
    metrics_->syncFences.add(1);
  return st;
}

void Executor::deferSync(uint64_t handle, NativeHandle s, uint32_t index) {
  deferredSync_ = DeferredSync{handle, s, bound_, batchSeq_, index};
  hasDeferredSync_ = true;
  syncStreamBusy_ = false;
  fenceRecorded_ = false;
  fenced_.clear();
}

OpStatus Executor::flushDeferredSync() {
  if (!hasDeferredSync_)
    return OpStatus::success();
  hasDeferredSync_ = false; // deferredSync_ still says where it came from
  fenced_.clear();
  uint64_t start = metrics_ ? monotonicNs() : 0;
  OpStatus st = bind(deferredSync_.device);
  if (st.ok())
    st = syncResult(ctx_->streamSynchronize(deferredSync_.native));
  if (metrics_)
    metrics_->deferredSyncNs.add(monotonicNs() - start);
  return st;
}

} // namespace rc::server
