// The upload ring and memory shared with a client on the same machine
// (host_transfers.h). A shared region is registered on the bound device's
// context; being portable, every device of the session reads back into it.
#include "executor/host_transfers.h"
#include "rc/server/errors.h"

namespace rc::server {

void HostTransfers::setLimits(uint64_t maxSharedBytes, BudgetSet pinned) {
  pinnedBudgets_ = std::move(pinned);
  sharedHost_.setLimits(maxSharedBytes, pinnedBudgets_);
}

const UploadRing *HostTransfers::createUploadRing(uint64_t size, bool shared,
                                                  std::string *why) {
  dropUploadRing();
  if (!pinnedBudgets_.take(size, why))
    return nullptr;
  uploadRing_ = UploadRing::create(*devices_.existing(0), size, shared, why);
  if (uploadRing_)
    ringHeld_ = size;
  else
    pinnedBudgets_.give(size);
  return uploadRing_.get();
}

void HostTransfers::dropUploadRing() {
  uploadRing_.reset();
  pinnedBudgets_.give(ringHeld_);
  ringHeld_ = 0;
}

OpStatus HostTransfers::uploadShared(const wire::MemcpyH2D &c, uint64_t n,
                                     NativeHandle stream) {
  uint8_t *src = nullptr;
  OpStatus st = sharedHost_.locate(c.host_region(), c.host_offset(), n, &src);
  // Straight from the registered pages, in stream order: no staging, no
  // wait. Before such pages are unmapped, the device has passed the read.
  if (st.ok() &&
      (st = devices_.ctx()->copyH2DFromHostAlloc(c.dst(), src, n, stream)).ok())
    sharedUploadDevices_.insert(devices_.bound());
  if (st.ok() && metrics_)
    metrics_->bytesInShared.add(n);
  return st;
}

void HostTransfers::finishSharedUploads() {
  for (int device : sharedUploadDevices_)
    if (devices_.bind(device).ok())
      devices_.ctx()->deviceSynchronize();
  sharedUploadDevices_.clear();
}

OpStatus HostTransfers::handle(const wire::MemcpyH2DRing &c, CommandAnswer &) {
  if (!uploadRing_)
    return OpStatus::fail(kErrInvalidValue, "this session has no upload ring");
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() ||
      !(st = memory_.checkRange("destination", c.dst(), c.size())).ok())
    return st;
  return uploadRing_->copy(*devices_.ctx(), c.dst(), c.ring_offset(), c.size(),
                           c.ring_end(), s);
}

OpStatus HostTransfers::readBackShared(const wire::MemcpyD2H &c,
                                       NativeHandle stream, ResultData &r) {
  uint8_t *dst = nullptr;
  OpStatus st =
      sharedHost_.locate(c.host_region(), c.host_offset(), c.size(), &dst);
  if (st.ok() && c.size())
    st = devices_.syncResult(
        devices_.ctx()->copyD2HRegistered(dst, c.src(), c.size(), stream));
  if (!st.ok())
    return st;
  r.writtenRemotely = true;
  if (metrics_)
    metrics_->bytesOutShared.add(c.size());
  return st;
}

OpStatus HostTransfers::handle(const wire::HostUnshare &c, CommandAnswer &) {
  finishSharedUploads(); // uploads from its pages may still be queued
  return sharedHost_.release(c.region());
}

OpStatus HostTransfers::handle(const wire::HostShare &c, CommandAnswer &a) {
  if (!hostSharing_)
    return OpStatus::fail(kErrNotSupported,
                          "memory is shared only with a client on the "
                          "server's machine (shm), and this session's "
                          "connection does not say it is one");
  uint64_t id = 0;
  std::string name;
  OpStatus st = sharedHost_.create(*devices_.ctx(), c.size(), &id, &name);
  if (!st.ok())
    return st;
  a.result.addr = id;
  a.result.payload = reply_.builder().CreateVector(
      reinterpret_cast<const uint8_t *>(name.data()), name.size());
  a.give();
  return st;
}

} // namespace rc::server
