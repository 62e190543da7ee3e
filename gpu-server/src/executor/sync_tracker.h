// Deferred stream syncs (docs/server-internals/sessions.md, "Deferred stream
// syncs"; sync_tracker.cpp): a cudaStreamSynchronize does not wait on the
// host. It becomes a pending sync, an obligation on every later command:
// work on its own stream keeps it by stream order; work on another stream
// of the same device waits on the GPU for an event recorded on the synced
// stream (a fence), unless the tracker already knows that stream to be
// ordered behind it; a command that may observe the host-side order, or a
// batch the client waits for, waits on the host. A decode token of
// llama.cpp (uploads on the per-thread stream, each between syncs of both
// streams, a graph launch and the logits read-back on the compute stream)
// thus reaches the GPU with one fence and no host wait.
#ifndef RC_SERVER_SYNC_TRACKER_H
#define RC_SERVER_SYNC_TRACKER_H

#include "executor/device_binding.h"
#include "protocol_generated.h"
#include "rc/server/session_metrics.h"

#include <map>
#include <utility>
#include <vector>

namespace rc::server {

class SyncTracker {
public:
  explicit SyncTracker(DeviceBinding &devices)
      : devices_(devices), fenceEvents_(devices.deviceCount()) {}
  void setMetrics(SessionMetrics *metrics) { metrics_ = metrics; }
  void startBatch(uint64_t seq) { batchSeq_ = seq; }

  // What each command orders on and enqueues: rc/command_table.h. The
  // executor calls these around each command: the first keeps the command
  // behind every pending sync, the second notes its work or its sync.
  OpStatus orderBehindPendingSyncs(const wire::CommandEntry &c);
  void noteCommandDone(const wire::CommandEntry &c, uint32_t index);
  // Host waits for every pending sync (its error is reported at
  // syncErrorAt(), the sync command that was deferred).
  OpStatus waitForPendingSyncs();
  std::pair<uint64_t, uint32_t> syncErrorAt() const { return syncErrorAt_; }
  void forgetStream(uint64_t handle, int device); // destroyed

private:
  struct StreamKey { // a client stream on a device (handles 0 and 2 are
    uint64_t handle; // per device)
    int device;
    bool operator<(const StreamKey &o) const {
      return handle != o.handle ? handle < o.handle : device < o.device;
    }
    bool operator==(const StreamKey &o) const {
      return handle == o.handle && device == o.device;
    }
  };
  // What the tracker knows of one stream, in points of seq_, which counts
  // every command that enqueues something.
  struct StreamClock {
    uint64_t lastWork = 0;     // its latest stream-ordered work
    uint64_t lastEnqueued = 0; // its latest work or fence wait
    uint64_t done = 0;         // what it got up to here has finished
    // What other streams got up to there runs before this stream's next work.
    std::map<StreamKey, uint64_t> after;
  };
  struct PendingSync {
    StreamKey stream;
    NativeHandle native = 0;
    uint64_t upTo = 0; // the sync waits for what its stream got up to here
    uint64_t seq = 0;  // the sync command's batch and index, for errors
    uint32_t index = 0;
  };
  struct FenceEvent { // one per device, created on first use
    NativeHandle event = 0;
    bool recorded = false;
    StreamKey stream{0, 0}; // where it was last recorded,
    uint64_t marks = 0;     // at that stream's lastEnqueued
  };
  // Makes `key`'s next work wait on the GPU for p's stream; a host wait
  // where that cannot be expressed.
  OpStatus fence(const StreamKey &key, NativeHandle native,
                 const PendingSync &p);
  bool orderedBehind(const StreamKey &key, const PendingSync &p);
  OpStatus waitFor(const PendingSync &p); // a host wait for one
  void markDone(const StreamKey &key);    // its enqueued work has finished

  DeviceBinding &devices_;
  SessionMetrics *metrics_ = nullptr;
  uint64_t seq_ = 0;
  uint64_t untrackedAt_ = 0; // the latest command that may enqueue unseen work
  std::map<StreamKey, StreamClock> clocks_;
  std::vector<PendingSync> pending_;
  std::vector<FenceEvent> fenceEvents_; // by device
  // The stream of the command being run (orderBehindPendingSyncs found it).
  bool commandHasStream_ = false;
  StreamKey commandStream_{0, 0};
  NativeHandle commandNative_ = 0;
  std::pair<uint64_t, uint32_t> syncErrorAt_{0, 0};
  uint64_t batchSeq_ = 0; // of the batch being run
};

} // namespace rc::server

#endif
