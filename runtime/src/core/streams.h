// The runtime's streams and events (streams.cpp, stream_attrs.cpp): the
// handles it issued and what each was created with, the legacy and
// per-thread default streams' wire IDs, cudaStreamSetAttribute's values,
// and the stream and event calls themselves. Handles are client-chosen IDs,
// so creation costs no round trip.
//
// Locking: the tables are guarded by the runtime's lock (runtime.h,
// "Locking"); the public calls take it, *Locked ones expect it held.
#ifndef RC_RT_STREAMS_H
#define RC_RT_STREAMS_H

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <optional>
#include <thread>
#include <utility>

namespace rc::rt {

class Runtime;

class Streams {
public:
  explicit Streams(Runtime &rt) : rt_(rt) {}
  Streams(const Streams &) = delete;
  Streams &operator=(const Streams &) = delete;

  cudaError_t streamCreate(cudaStream_t *stream, unsigned flags, int priority);
  // cudaStreamGetFlags / GetPriority: what the stream was created with
  // (the legacy and per-thread streams: 0 and 0), answered locally.
  cudaError_t streamFlagsAndPriority(cudaStream_t stream, unsigned *flags,
                                     int *priority);
  cudaError_t streamDestroy(cudaStream_t stream);
  // cudaStreamSetAttribute / GetAttribute (stream_attrs.cpp).
  cudaError_t streamSetAttribute(cudaStream_t stream, int attribute,
                                 const cudaLaunchAttributeValue *value,
                                 bool perThread);
  cudaError_t streamGetAttribute(cudaStream_t stream, int attribute,
                                 cudaLaunchAttributeValue *value,
                                 bool perThread);
  cudaError_t streamSynchronize(cudaStream_t stream, bool perThread);
  cudaError_t streamQuery(cudaStream_t stream, bool perThread);
  cudaError_t streamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                              unsigned flags, bool perThread);
  cudaError_t eventCreate(cudaEvent_t *event, unsigned flags);
  cudaError_t eventDestroy(cudaEvent_t event);
  cudaError_t eventRecord(cudaEvent_t event, cudaStream_t stream,
                          bool perThread);
  cudaError_t eventSynchronize(cudaEvent_t event);
  cudaError_t eventQuery(cudaEvent_t event);
  cudaError_t eventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

  // The ID the wire (and the graph state) knows `stream` by: 0 for the
  // legacy stream, the thread's own for the per-thread one (created on
  // first use); cudaErrorInvalidResourceHandle for no stream of ours.
  cudaError_t wireStream(cudaStream_t stream, bool perThread, uint64_t *id);

  // ---- with the runtime's lock held -------------------------------------
  cudaError_t wireStreamLocked(cudaStream_t s, bool perThread, uint64_t *out);
  // The connection (Runtime::ensureConnectedLocked), then wireStreamLocked.
  cudaError_t connectedStreamLocked(cudaStream_t s, bool perThread,
                                    uint64_t *out);
  cudaError_t wireEventLocked(cudaEvent_t e, uint64_t *out);
  // cudaDeviceReset: every stream and event is destroyed (appended to the
  // batch, in creation-table order) and forgotten.
  void destroyAllLocked(const char *call);
  // The server's word at Hello: every stream runs at this priority (the
  // tenant's, rc-server --quotas priority=...); none: as asked.
  void forcePriorityLocked(std::optional<int> priority) {
    forcedPriority_ = priority;
  }

private:
  Runtime &rt_;
  struct StreamInfo {
    unsigned flags;
    int priority; // clamped to cudaDeviceGetStreamPriorityRange's, as CUDA does
  };
  std::map<uint64_t, StreamInfo> created_;
  std::optional<int> forcedPriority_; // forcePriorityLocked
  // What cudaStreamSetAttribute set, by (wire stream, attribute).
  std::map<std::pair<uint64_t, int>, cudaLaunchAttributeValue> attrs_;
  std::map<uint64_t, unsigned> events_; // id -> flags
  // cudaStreamPerThread of (thread, device): each device has its own.
  std::map<std::pair<std::thread::id, int>, uint64_t> perThread_;
};

} // namespace rc::rt

#endif
