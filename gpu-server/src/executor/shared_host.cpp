#include "executor/shared_host.h"
#include "rc/server/errors.h"

namespace rc::server {

namespace {
OpStatus unknownRegion(uint64_t id) {
  return OpStatus::fail(kErrInvalidValue, "no shared host region " +
                                              std::to_string(id) +
                                              " in this session");
}
} // namespace

SharedHost::~SharedHost() { budgets_.give(bytes_); }

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
  std::string why;
  if (!budgets_.take(size, &why))
    return OpStatus::fail(kErrMemoryAllocation, "shared pinned memory: " + why);
  std::unique_ptr<SharedMemory> region;
  OpStatus st = SharedMemory::create(ctx, "/rc-host-", size, &region);
  if (!st.ok()) {
    budgets_.give(size);
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
  budgets_.give(it->second->size());
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
