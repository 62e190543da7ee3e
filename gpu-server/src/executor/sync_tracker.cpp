// Deferred stream syncs and their GPU-side fences (sync_tracker.h says why).
//
// When the client's cudaStreamSynchronize(S) returned, S's work up to then
// had finished, so everything the client issued after it starts after that
// work. The executor keeps that promise without waiting on the host: S's
// sync stays pending, and every later command on another stream U is
// ordered behind it on the GPU (U waits for an event recorded on S), unless
// U is already known to be behind it: it waited for S (or for a stream
// that waited for S) since, or S's work is known to have finished (a host
// wait, a read-back on S). Sequence numbers of what is enqueued (seq_) make
// that bookkeeping exact; a fence is skipped only where it would add
// nothing. Before a command that is not stream-ordered the host waits for
// every pending sync; one that may enqueue work the bookkeeping does not
// see (cuBLAS calls, symbol copies, a stream's wait for an event) leaves no
// stream counted as idle until a wait or read-back says so again.
#include "executor/sync_tracker.h"

#include "rc/command_table.h"

#include <algorithm>

namespace rc::server {

OpStatus SyncTracker::orderBehindPendingSyncs(const wire::CommandEntry &c) {
  commandHasStream_ = false;
  const wire::CommandInfo *info = wire::commandInfo(c.cmd_type());
  uint64_t handle = 0;
  if (!wire::commandStream(c, &handle)) {
    OpStatus st = waitForPendingSyncs();
    // An unknown command is refused by execute(); counted as work here.
    if (!info || info->work != wire::GpuWork::None) {
      untrackedAt_ = ++seq_;
      for (FenceEvent &f : fenceEvents_)
        f.recorded = false; // its stream may have more work now
    }
    return st;
  }
  if (handle == kLegacyStreamHandle)
    handle = 0;
  NativeHandle native = 0;
  if (!devices_.bindStream(handle, &native).ok())
    return OpStatus::success(); // execute() reports the unknown stream
  commandHasStream_ = true;
  commandStream_ = StreamKey{handle, devices_.bound()};
  commandNative_ = native;
  // A sync enqueues nothing: only work must be ordered.
  if (info->work == wire::GpuWork::None)
    return OpStatus::success();
  for (size_t i = 0; i < pending_.size(); ++i) {
    PendingSync p = pending_[i]; // a host wait may change pending_
    if (p.stream == commandStream_ || orderedBehind(commandStream_, p))
      continue;
    OpStatus st = fence(commandStream_, native, p);
    if (!st.ok())
      return st;
  }
  return OpStatus::success();
}

bool SyncTracker::orderedBehind(const StreamKey &key, const PendingSync &p) {
  if (p.upTo <= clocks_[p.stream].done)
    return true;
  const std::map<StreamKey, uint64_t> &after = clocks_[key].after;
  auto it = after.find(p.stream);
  return it != after.end() && it->second >= p.upTo;
}

OpStatus SyncTracker::fence(const StreamKey &key, NativeHandle native,
                            const PendingSync &p) {
  // Work on p's stream since its sync: an event recorded now would make
  // `key` wait for that too, which the client never asked for.
  StreamClock &src = clocks_[p.stream];
  if (p.stream.device != key.device || src.lastWork > p.upTo)
    return waitFor(p);
  OpStatus st = devices_.bind(key.device);
  FenceEvent &f = fenceEvents_[size_t(key.device)];
  if (st.ok() && !f.event)
    st = devices_.ctx()->eventCreate(kEventDisableTiming, &f.event);
  // An event recorded at p's stream's current state can serve again.
  bool current =
      f.recorded && f.stream == p.stream && f.marks == src.lastEnqueued;
  if (st.ok() && !current) {
    st = devices_.ctx()->eventRecord(f.event, p.native);
    f.recorded = st.ok();
    f.stream = p.stream;
    f.marks = src.lastEnqueued;
  }
  if (st.ok())
    st = devices_.ctx()->streamWaitEvent(native, f.event, 0);
  if (!st.ok()) // the host wait reports what went wrong, if it persists
    return waitFor(p);
  // The event covers all p's stream has now (it got nothing since a reused
  // event was recorded), and what that stream itself waited for.
  StreamClock &dst = clocks_[key];
  for (const auto &[stream, upTo] : src.after)
    dst.after[stream] = std::max(dst.after[stream], upTo);
  dst.after[p.stream] = std::max(dst.after[p.stream], seq_);
  dst.lastEnqueued = ++seq_;
  if (metrics_)
    metrics_->syncFences.add(1);
  return st;
}

void SyncTracker::noteCommandDone(const wire::CommandEntry &c, uint32_t index) {
  if (!commandHasStream_)
    return;
  const StreamKey key = commandStream_;
  StreamClock &clock = clocks_[key];
  if (c.cmd_type() != wire::Command::StreamSynchronize) {
    clock.lastWork = clock.lastEnqueued = ++seq_;
    // A read-back returns once its bytes are on the host: the stream's
    // work before it has finished.
    if (c.cmd_type() == wire::Command::MemcpyD2H &&
        c.cmd_as_MemcpyD2H()->size() > 0)
      markDone(key);
    return;
  }
  uint64_t upTo = std::max(clock.lastEnqueued, untrackedAt_);
  if (clock.done >= upTo)
    return; // nothing to wait for
  // This sync replaces an older one of its stream, and any other that the
  // stream is known to be behind: waiting for it covers theirs.
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [&](const PendingSync &p) {
                                  return p.stream == key ||
                                         orderedBehind(key, p);
                                }),
                 pending_.end());
  pending_.push_back(PendingSync{key, commandNative_, upTo, batchSeq_, index});
}

void SyncTracker::markDone(const StreamKey &key) {
  StreamClock &clock = clocks_[key];
  clock.done = seq_; // whatever was enqueued on it so far
  for (const auto &[stream, upTo] : clock.after) {
    StreamClock &other = clocks_[stream];
    other.done = std::max(other.done, upTo);
  }
}

OpStatus SyncTracker::waitFor(const PendingSync &p) {
  if (p.upTo <= clocks_[p.stream].done)
    return OpStatus::success();
  uint64_t start = metrics_ ? monotonicNs() : 0;
  OpStatus st = devices_.bind(p.stream.device);
  if (st.ok())
    st = devices_.syncResult(devices_.ctx()->streamSynchronize(p.native));
  if (metrics_)
    metrics_->deferredSyncNs.add(monotonicNs() - start);
  if (!st.ok()) {
    syncErrorAt_ = {p.seq, p.index};
    pending_.clear(); // reported once; the error is sticky in CUDA anyway
    return st;
  }
  markDone(p.stream);
  return st;
}

OpStatus SyncTracker::waitForPendingSyncs() {
  // Newest first: a later sync's wait often covers the older ones.
  while (!pending_.empty()) {
    PendingSync p = pending_.back();
    pending_.pop_back();
    OpStatus st = waitFor(p);
    if (!st.ok())
      return st;
  }
  return OpStatus::success();
}

void SyncTracker::forgetStream(uint64_t handle, int device) {
  // A later stream may get the same handle: it starts unknown. (Every
  // pending sync was waited for before the destroy, which is not
  // stream-ordered.)
  StreamKey key{handle, device};
  clocks_.erase(key);
  for (FenceEvent &f : fenceEvents_)
    if (f.recorded && f.stream == key)
      f.recorded = false;
}

} // namespace rc::server
