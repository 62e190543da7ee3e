#include "session/shared_host.h"
#include "rc/server/errors.h"

namespace rc::server {

namespace {
OpStatus unknownRegion(uint64_t id) {
  return OpStatus::fail(kErrInvalidValue, "no shared host region " +
                                              std::to_string(id) +
                                              " in this session");
}
} // namespace

SharedHost::~SharedHost() {
  if (total_)
    total_->give(bytes_);
}

OpStatus SharedHost::create(DeviceContext &ctx, uint64_t size, uint64_t *id,
                            std::string *name) {
  if (size == 0)
    return OpStatus::fail(kErrInvalidValue, "a shared host region of 0 bytes");
  if (bytes_ > maxBytes_ || size > maxBytes_ - bytes_)
    return OpStatus::fail(
        kErrMemoryAllocation,
        std::to_string(size) + " bytes more of shared pinned memory would " +
            "pass the session's limit of " + std::to_string(maxBytes_) + " (" +
            std::to_string(bytes_) + " shared; RC_SERVER_SHARED_HOST_MIB)");
  if (total_ && !total_->take(size))
    return OpStatus::fail(kErrMemoryAllocation,
                          std::to_string(size) +
                              " bytes more of shared pinned memory do not " +
                              "fit the server's total for all sessions (" +
                              std::to_string(total_->used()) + " of " +
                              std::to_string(total_->total()) +
                              " bytes in use; RC_SERVER_PINNED_TOTAL_MIB)");
  std::unique_ptr<SharedMemory> region;
  OpStatus st = SharedMemory::create(ctx, "/rc-host-", size, &region);
  if (!st.ok()) {
    if (total_)
      total_->give(size);
    return st;
  }
  *id = nextId_++;
  *name = region->name();
  regions_[*id] = std::move(region);
  bytes_ += size;
  return OpStatus::success();
}

OpStatus SharedHost::release(uint64_t id) {
  auto it = regions_.find(id);
  if (it == regions_.end())
    return unknownRegion(id);
  bytes_ -= it->second->size();
  if (total_)
    total_->give(it->second->size());
  regions_.erase(it);
  return OpStatus::success();
}

OpStatus SharedHost::locate(uint64_t id, uint64_t offset, uint64_t size,
                            uint8_t **host) const {
  auto it = regions_.find(id);
  if (it == regions_.end())
    return unknownRegion(id);
  const SharedMemory &r = *it->second;
  if (offset > r.size() || size > r.size() - offset)
    return OpStatus::fail(
        kErrInvalidValue,
        std::to_string(size) + " bytes at offset " + std::to_string(offset) +
            " are not inside shared host region " + std::to_string(id) +
            " of " + std::to_string(r.size()) + " bytes");
  *host = r.base() + offset;
  return OpStatus::success();
}

} // namespace rc::server
