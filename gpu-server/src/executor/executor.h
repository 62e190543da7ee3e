// Replays one session's batches: validates each command against the
// session's own state (allocations, streams, events, resolved symbols) and
// the registry, then performs it on the session's DeviceContext of the
// device the command belongs to (docs/server-internals/devices.md, "Several
// GPUs").
//
// The Executor runs a batch and hands each command to the handler group of
// its family (executor_dispatch.cpp); each group keeps its own objects.
// What they share are the roles below them: which device a command runs on
// (device_binding.h), which memory is the session's (allocation_table.h),
// the batch's reply (reply_writer.h) and the deferred syncs every command is
// ordered behind (sync_tracker.h).
#ifndef RC_SERVER_EXECUTOR_H
#define RC_SERVER_EXECUTOR_H

#include "executor/allocation_table.h"
#include "executor/blas_commands.h"
#include "executor/cache_commands.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/graph_commands.h"
#include "executor/host_transfers.h"
#include "executor/kernel_commands.h"
#include "executor/library_calls.h"
#include "executor/memory_commands.h"
#include "executor/reply_writer.h"
#include "executor/stream_commands.h"
#include "executor/sync_tracker.h"
#include "executor/texture_commands.h"
#include "executor/vmm_commands.h"
#include "protocol_generated.h"
#include "rc/server/backend.h"
#include "rc/server/content_cache.h"
#include "rc/server/limits.h"
#include "rc/server/session_metrics.h"
#include "rc/server/session_symbols.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rc::server {

struct ErrorData {
  uint64_t seq = 0;
  uint32_t index = 0;
  int32_t code = 0;
  std::string message;
};

class Executor {
public:
  // `first`: the session's context on device 0, created at Hello.
  // `symbols`: the kernels and variables of the manifests the client
  // announced.
  Executor(SessionSymbols symbols, Backend &backend,
           std::unique_ptr<DeviceContext> first);
  ~Executor(); // gives back what it took from the shared budgets
  // What the session's memory is charged to (rc/server/limits.h): the
  // budgets all sessions share and its tenant's quotas (null: no bound).
  struct Budgets {
    ByteBudget *reply = nullptr, *pinned = nullptr;
    ByteBudget *tenantPinned = nullptr, *tenantDevice = nullptr;
  };
  // The session's bounds (limits.h): read-back bytes in one batch's reply,
  // pinned memory shared with the client; and its budgets. Before the
  // first batch.
  void setBounds(uint64_t maxReplyBytes, uint64_t maxSharedHostBytes,
                 const Budgets &budgets);
  // Every stream the session creates, or sets a priority on, runs at
  // `priority` whatever the client asks (its tenant's quota); none: as
  // asked.
  void forceStreamPriority(std::optional<int> priority) {
    devices_.forceStreamPriority(priority);
  }

  // Runs the batch up to its first failing command. Returns false and fills
  // *error when a command failed; `results` gets what commands returned.
  // Read-backs copy their bytes straight into `reply`, the builder of the
  // batch's reply (one copy from the pinned staging, none after). The batch
  // came through wire::openMessage: every command (and graph node) whose
  // type is known carries its table, so the executor reads it unchecked.
  bool run(const wire::Batch &batch, std::vector<ResultData> &results,
           ErrorData *error, flatbuffers::FlatBufferBuilder &reply);
  // True once a Goodbye command was executed.
  bool saidGoodbye() const { return goodbye_; }
  // Non-zero once an error left the device context unusable.
  int stickyError() const { return sticky_; }
  const std::string &stickyMessage() const { return stickyMessage_; }
  uint64_t commandsRun() const { return commands_; }
  // Devices this session has a context on, ascending.
  std::vector<int> devicesUsed() const { return devices_.devicesUsed(); }
  // Where each command's count and replay time go (none: not timed).
  void setMetrics(SessionMetrics *metrics);
  // Writes read-back bytes straight into the client's memory (the
  // transport's RMA; docs/transport.md). Without one, or when it fails, a
  // read-back that asked for RMA travels in the reply like any other.
  // `pieceBytes` says, per read-back, how large the pieces handed to the
  // writer should be (0: the device context's own).
  using RemoteWriter = ReplyWriter::RemoteWriter;
  void setRemoteWriter(RemoteWriter writer,
                       std::function<uint64_t()> pieceBytes) {
    reply_.setRemoteWriter(std::move(writer), std::move(pieceBytes));
  }
  // The session's upload ring on device 0's context (MemcpyH2DRing), in a
  // file the client maps if `shared`; null and *why when it cannot be
  // allocated (or the pinned budget of all sessions is spent).
  // dropUploadRing() frees it again (the transport could not expose it).
  const UploadRing *createUploadRing(uint64_t size, bool shared,
                                     std::string *why) {
    return host_.createUploadRing(size, shared, why);
  }
  void dropUploadRing() { host_.dropUploadRing(); }
  // HostShare is served only to a client on this machine (its connection
  // says so): it maps files of this machine's /dev/shm.
  void allowHostSharing(bool allow) { host_.allowHostSharing(allow); }
  // How far the ring's copies have finished (BatchReply.ring_released).
  uint64_t uploadRingReleased() { return host_.uploadRingReleased(); }
  // The server's content cache and the session's namespace in it (its
  // tenant; docs/server-internals/content-cache.md, "Content cache"); null:
  // none (the cache's commands fail naming it).
  void setContentCache(ContentCache *cache, std::string space) {
    cache_.setContentCache(cache, std::move(space));
  }

private:
  OpStatus execute(const wire::CommandEntry &entry, uint32_t index,
                   std::vector<ResultData> &results, std::string *what);
  // One command to the handler of its group (executor_dispatch.cpp).
  OpStatus dispatch(const wire::CommandEntry &entry, CommandAnswer &a);
  OpStatus goodbye();

  const SessionSymbols names_; // what the client's IDs mean
  // The roles every handler group shares; declared (so built) first and
  // destroyed last: the groups' objects live in the devices' contexts.
  DeviceBinding devices_;
  AllocationTable memory_;
  ReplyWriter reply_;
  SyncTracker sync_;
  // The handler groups, one per command family; a group another one calls
  // (the cache, host transfers, library calls, kernels) comes first, so it
  // is built before its callers and destroyed after them.
  CacheCommands cache_;
  HostTransfers host_;
  LibraryCalls libraries_;
  KernelCommands kernels_;
  MemoryCommands memoryCommands_;
  StreamCommands streams_;
  VmmCommands vmm_;
  TextureCommands textures_;
  BlasCommands blas_;
  GraphCommands graphs_;

  int sticky_ = 0;
  std::string stickyMessage_;
  bool goodbye_ = false;
  uint64_t commands_ = 0;
  SessionMetrics *metrics_ = nullptr;
};

} // namespace rc::server

#endif
