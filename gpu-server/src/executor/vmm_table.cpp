#include "executor/vmm_table.h"

namespace rc::server {

bool VmmTable::isReservation(uint64_t base, uint64_t size) const {
  auto it = reservations_.find(base);
  return it != reservations_.end() && it->second == size;
}

bool VmmTable::insideOneReservation(uint64_t addr, uint64_t size) const {
  auto res = reservations_.upper_bound(addr);
  if (res == reservations_.begin())
    return false;
  --res;
  uint64_t off = addr - res->first;
  return off < res->second && size <= res->second - off;
}

const VmmTable::Physical *VmmTable::physical(uint64_t handle) const {
  auto it = physical_.find(handle);
  return it == physical_.end() ? nullptr : &it->second;
}

void VmmTable::addMapping(uint64_t base, uint64_t size, int device,
                          std::shared_ptr<const HeldBytes> charge) {
  mappings_[base] = Mapping{size, false, device, std::move(charge)};
}

bool VmmTable::firstMappingIn(uint64_t addr, uint64_t size,
                              uint64_t *base) const {
  auto m = mappings_.lower_bound(addr);
  if (m == mappings_.end() || m->first - addr >= size)
    return false;
  *base = m->first;
  return true;
}

bool VmmTable::overlapsMapping(uint64_t addr, uint64_t size) const {
  auto next = mappings_.lower_bound(addr);
  if (next != mappings_.end() && next->first - addr < size)
    return true;
  if (next == mappings_.begin())
    return false;
  auto prev = std::prev(next);
  return prev->first + prev->second.size > addr;
}

bool VmmTable::wholeMappings(uint64_t addr, uint64_t size,
                             std::vector<uint64_t> *bases) const {
  uint64_t at = addr;
  while (at - addr < size) {
    auto it = mappings_.find(at);
    if (it == mappings_.end() || it->second.size > size - (at - addr))
      return false;
    bases->push_back(at);
    at += it->second.size;
  }
  return size != 0;
}

void VmmTable::removeMappings(const std::vector<uint64_t> &bases) {
  for (uint64_t b : bases)
    mappings_.erase(b);
}

void VmmTable::enableAccess(const std::vector<uint64_t> &bases) {
  for (uint64_t b : bases)
    mappings_[b].access = true;
}

bool VmmTable::contains(uint64_t addr, uint64_t size, int *device) const {
  auto it = mappings_.upper_bound(addr);
  if (it == mappings_.begin())
    return false;
  --it;
  uint64_t end = it->first + it->second.size; // covered so far
  if (addr > end || (size && addr == end) || !it->second.access)
    return false;
  *device = it->second.device;
  while (end - addr < size) {
    auto next = mappings_.find(end);
    if (next == mappings_.end() || !next->second.access)
      return false;
    end += next->second.size;
  }
  return true;
}

} // namespace rc::server
