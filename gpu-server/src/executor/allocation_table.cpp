#include "executor/allocation_table.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

namespace rc::server {

bool AllocationTable::inSession(uint64_t addr, uint64_t size,
                                int *device) const {
  for (const auto *table : {&allocations_, &symbolRanges_}) {
    auto it = table->upper_bound(addr);
    if (it == table->begin())
      continue;
    --it;
    uint64_t off = addr - it->first;
    if (off <= it->second.size && size <= it->second.size - off) {
      if (device)
        *device = it->second.device;
      return true;
    }
  }
  int mapped = 0;
  if (!vmm_.contains(addr, size, &mapped))
    return false;
  if (device)
    *device = mapped;
  return true;
}

OpStatus AllocationTable::checkRange(const char *role, uint64_t addr,
                                     uint64_t size, int *device) const {
  if (inSession(addr, size, device))
    return OpStatus::success();
  return OpStatus::fail(kErrInvalidValue,
                        std::string(role) + " range " + hexAddress(addr) +
                            " + " + std::to_string(size) +
                            " bytes is not inside one allocation of this "
                            "session");
}

const AllocationTable::Range *AllocationTable::allocation(uint64_t base) const {
  auto it = allocations_.find(base);
  return it == allocations_.end() ? nullptr : &it->second;
}

bool AllocationTable::symbolAddress(int device, uint64_t id,
                                    uint64_t *addr) const {
  auto it = symbols_.find({device, id});
  if (it == symbols_.end())
    return false;
  *addr = it->second.first;
  return true;
}

void AllocationTable::addSymbol(int device, uint64_t id, uint64_t addr,
                                uint64_t size) {
  symbols_.emplace(std::make_pair(device, id), std::make_pair(addr, size));
  symbolRanges_[addr] = Range{size, device, nullptr};
}

} // namespace rc::server
