#include "executor/upload_ring.h"
#include "rc/server/errors.h"

namespace rc::server {

std::unique_ptr<UploadRing> UploadRing::create(DeviceContext &owner,
                                               uint64_t size, bool shared,
                                               std::string *why) {
  std::unique_ptr<SharedMemory> file;
  uint8_t *base = nullptr;
  OpStatus st = shared ? SharedMemory::create(owner, "/rc-ring-", size, &file)
                       : owner.hostAlloc(size, &base);
  if (!st.ok()) {
    *why = st.detail;
    return nullptr;
  }
  if (file)
    base = file->base();
  return std::unique_ptr<UploadRing>(
      new UploadRing(owner, base, size, std::move(file)));
}

UploadRing::~UploadRing() {
  for (InFlight &f : inFlight_) {
    f.ctx->eventSynchronize(f.event);
    f.ctx->eventDestroy(f.event);
  }
  if (!shared_)
    owner_.hostFree(base_);
}

OpStatus UploadRing::copy(DeviceContext &ctx, uint64_t dst, uint64_t offset,
                          uint64_t size, uint64_t ringEnd,
                          NativeHandle stream) {
  if (size == 0 || offset > size_ || size > size_ - offset)
    return OpStatus::fail(kErrInvalidValue,
                          std::to_string(size) + " bytes at offset " +
                              std::to_string(offset) +
                              " are not inside the upload ring of " +
                              std::to_string(size_) + " bytes");
  if (ringEnd < lastEnd_)
    return OpStatus::fail(kErrInvalidValue,
                          "upload ring position " + std::to_string(ringEnd) +
                              " is behind the previous one (" +
                              std::to_string(lastEnd_) + ")");
  OpStatus st = ctx.copyH2DFromHostAlloc(dst, base_ + offset, size, stream);
  if (!st.ok())
    return st;
  NativeHandle event = 0;
  if (!(st = ctx.eventCreate(kEventDisableTiming, &event)).ok())
    return st;
  if (!(st = ctx.eventRecord(event, stream)).ok()) {
    ctx.eventDestroy(event);
    return st;
  }
  inFlight_.push_back({ringEnd, &ctx, event});
  lastEnd_ = ringEnd;
  return st;
}

uint64_t UploadRing::released() {
  while (!inFlight_.empty()) {
    InFlight &f = inFlight_.front();
    if (!f.ctx->eventQuery(f.event).ok())
      break; // still copying (or failed: the error reaches the client anyway)
    f.ctx->eventDestroy(f.event);
    released_ = f.end;
    inFlight_.pop_front();
  }
  if (inFlight_.empty())
    released_ = lastEnd_;
  return released_;
}

} // namespace rc::server
