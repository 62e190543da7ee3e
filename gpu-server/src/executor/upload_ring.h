// A session's upload ring (docs/server-internals/sessions.md, "Upload ring"):
// host memory the device copies from directly (pinned on CUDA) that the client
// writes large uploads into. A MemcpyH2DRing command then copies its piece to
// the device without staging, and an event per copy tells when the client may
// write that piece again: released() reports it as a running byte count,
// which every batch reply carries back.
//
// How the client writes into it depends on where it runs: across the
// network by RMA into memory this side exposes; on the same machine (shm)
// with plain stores into a shared-memory file that it maps, so that no RMA
// into the server is needed at all (shared_memory.h).
#ifndef RC_SERVER_UPLOAD_RING_H
#define RC_SERVER_UPLOAD_RING_H

#include "executor/shared_memory.h"
#include "rc/server/backend.h"

#include <deque>
#include <memory>

namespace rc::server {

class UploadRing {
public:
  // Memory of `size` bytes from `owner` (which must outlive the ring, as
  // must every context a copy ran on), in a shared-memory file the client
  // maps if `shared`; null and *why on failure.
  static std::unique_ptr<UploadRing> create(DeviceContext &owner, uint64_t size,
                                            bool shared, std::string *why);
  ~UploadRing(); // waits for copies still reading the memory, frees it

  uint8_t *base() const { return base_; }
  uint64_t size() const { return size_; }
  // The file the client maps (empty: not shared, the client writes by RMA).
  std::string fileName() const { return shared_ ? shared_->name() : ""; }
  // Copies [offset, offset+size) of the ring to device address `dst` on
  // `stream` of `ctx`. ringEnd: the client's running count of allocated
  // ring bytes, this piece included; it never goes backwards.
  OpStatus copy(DeviceContext &ctx, uint64_t dst, uint64_t offset,
                uint64_t size, uint64_t ringEnd, NativeHandle stream);
  // Running count up to which every copy has finished.
  uint64_t released();

private:
  UploadRing(DeviceContext &owner, uint8_t *base, uint64_t size,
             std::unique_ptr<SharedMemory> shared)
      : owner_(owner), base_(base), size_(size), shared_(std::move(shared)) {}
  struct InFlight {
    uint64_t end;
    DeviceContext *ctx;
    NativeHandle event;
  };
  DeviceContext &owner_;
  uint8_t *base_;
  uint64_t size_;
  std::unique_ptr<SharedMemory> shared_; // else base_ is owner_'s hostAlloc
  std::deque<InFlight> inFlight_;        // in ring order
  uint64_t lastEnd_ = 0, released_ = 0;
};

} // namespace rc::server

#endif
