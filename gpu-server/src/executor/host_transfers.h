// Copies through host memory the client reaches directly, without the
// transport's messages: the session's upload ring (upload_ring.h;
// MemcpyH2DRing) and the pinned regions it shares with a client on the
// same machine (shared_host.h; HostShare, and copies naming a region).
// Both are charged to the pinned-memory budgets, and both are freed only
// once no copy of the GPU may still be reading them.
#ifndef RC_SERVER_HOST_TRANSFERS_H
#define RC_SERVER_HOST_TRANSFERS_H

#include "executor/allocation_table.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/reply_writer.h"
#include "executor/shared_host.h"
#include "executor/upload_ring.h"
#include "protocol_generated.h"
#include "rc/server/limits.h"
#include "rc/server/session_metrics.h"

#include <memory>
#include <set>
#include <string>

namespace rc::server {

class HostTransfers {
public:
  HostTransfers(DeviceBinding &devices, AllocationTable &memory,
                ReplyWriter &reply)
      : devices_(devices), memory_(memory), reply_(reply) {}
  // At most `maxSharedBytes` shared with the client at once; the ring and
  // the shared regions are taken from `pinned` (all sessions' pinned
  // memory and the tenant's quota). Before the first batch.
  void setLimits(uint64_t maxSharedBytes, BudgetSet pinned);
  void setMetrics(SessionMetrics *metrics) { metrics_ = metrics; }
  // HostShare is served only to a client on this machine (its connection
  // says so): it maps files of this machine's /dev/shm.
  void allowHostSharing(bool allow) { hostSharing_ = allow; }

  // The session's upload ring on device 0's context, in a file the client
  // maps if `shared`; null and *why when it cannot be allocated (or the
  // pinned budget of all sessions is spent). dropUploadRing() frees it.
  const UploadRing *createUploadRing(uint64_t size, bool shared,
                                     std::string *why);
  void dropUploadRing();
  // How far the ring's copies have finished (BatchReply.ring_released).
  uint64_t uploadRingReleased() {
    return uploadRing_ ? uploadRing_->released() : 0;
  }

  // A MemcpyH2D whose bytes are in a shared region (host_region).
  OpStatus uploadShared(const wire::MemcpyH2D &c, uint64_t n,
                        NativeHandle stream);
  // A MemcpyD2H into a region shared with the client: one DMA, no payload.
  OpStatus readBackShared(const wire::MemcpyD2H &c, NativeHandle stream,
                          ResultData &r);
  // Waits for every upload still reading shared pages.
  void finishSharedUploads();

  OpStatus handle(const wire::MemcpyH2DRing &c, CommandAnswer &a);
  OpStatus handle(const wire::HostShare &c, CommandAnswer &a);
  OpStatus handle(const wire::HostUnshare &c, CommandAnswer &a);

private:
  DeviceBinding &devices_;
  AllocationTable &memory_;
  ReplyWriter &reply_;
  SessionMetrics *metrics_ = nullptr;
  BudgetSet pinnedBudgets_;
  uint64_t ringHeld_ = 0; // taken from pinnedBudgets_ for the upload ring
  // Both go before the session's contexts (the executor declares its
  // DeviceBinding first): the ring waits for its copies' events, and the
  // regions are unregistered from the contexts they were registered with.
  std::unique_ptr<UploadRing> uploadRing_;
  SharedHost sharedHost_{ServerLimits().sharedHostBytes};
  // Uploads straight from shared host memory (MemcpyH2D.host_region) read
  // its pages asynchronously: the devices that may still be reading, all
  // synchronized before a region is unmapped.
  std::set<int> sharedUploadDevices_;
  bool hostSharing_ = false; // the client runs on this machine
};

} // namespace rc::server

#endif
