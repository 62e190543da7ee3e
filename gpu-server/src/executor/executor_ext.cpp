// Commands of ggml-cuda's driver surface beyond the core set:
// cudaFuncSetAttribute and the driver VMM calls (cuMemAddressReserve,
// cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease,
// cuMemAddressFree) that ggml's memory pool makes. The executor validates
// every range and handle against the session's own VMM state before the
// backend acts, and mapped ranges with access enabled count as session
// memory for copies and launch pointers (inMapped).
#include "executor/executor.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <cuda.h>

#include <cstdio>

namespace rc::server {

namespace {

OpStatus fail(int code, std::string detail) {
  return OpStatus::fail(code, std::move(detail));
}

constexpr uint64_t kMaxReserveAlignment = uint64_t(1) << 40;

std::string range(uint64_t addr, uint64_t size) {
  return hexAddress(addr) + " + " + std::to_string(size) + " bytes";
}

// Only the attributes cudaFuncSetAttribute can set.
bool settable(int attribute) {
  return attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
         attribute == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT ||
         attribute == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH ||
         attribute == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED ||
         attribute == CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
}

OpStatus notWholeMappings(uint64_t addr, uint64_t size) {
  return fail(kErrInvalidValue, range(addr, size) +
                                    " is not a run of whole mappings of "
                                    "this session");
}

} // namespace

const KernelInfo *Executor::sessionKernel(uint64_t id) const {
  const KernelInfo *k = registry_.kernel(id);
  if (k)
    for (uint32_t m : k->manifests)
      if (m < allowed_.size() && allowed_[m])
        return k;
  return nullptr;
}

bool Executor::inMapped(uint64_t addr, uint64_t size, int *device) const {
  auto it = mappings_.upper_bound(addr);
  if (it == mappings_.begin())
    return false;
  --it;
  uint64_t end = it->first + it->second.size; // covered so far
  // A pointer (size 0) may be one past the end, like any allocation.
  if (addr > end || (size && addr == end) || !it->second.access)
    return false;
  *device = it->second.device;
  // Mappings made back to back (ggml grows its pool this way) form one
  // contiguous range: a buffer may straddle two of them.
  while (end - addr < size) {
    auto next = mappings_.find(end);
    if (next == mappings_.end() || !next->second.access)
      return false;
    end += next->second.size;
  }
  return true;
}

bool Executor::wholeMappings(uint64_t addr, uint64_t size,
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

OpStatus Executor::handle(const wire::FuncSetAttribute &c, Answer &a) {
  const KernelInfo *k = sessionKernel(c.kernel_id());
  if (!k)
    return fail(kErrInvalidDeviceFunction,
                "unknown kernel id " + hexId(c.kernel_id()));
  *a.what += " (" + k->demangled + ")";
  if (!settable(c.attribute()))
    return fail(kErrInvalidValue, "attribute " + std::to_string(c.attribute()) +
                                      " cannot be set");
  return ctx_->setKernelAttribute(*k, c.attribute(), c.value());
}

OpStatus Executor::handle(const wire::MemAddressReserve &c, Answer &a) {
  if (c.size() == 0)
    return fail(kErrInvalidValue, "size 0");
  // 0 (the granularity) or a power of two, as the driver takes it; at
  // most 1 TiB, so that rounding an address up cannot wrap around.
  if ((c.alignment() & (c.alignment() - 1)) != 0 ||
      c.alignment() > kMaxReserveAlignment)
    return fail(kErrInvalidValue,
                "alignment " + std::to_string(c.alignment()) +
                    " is not 0 or a power of two up to 1 TiB");
  uint64_t addr = 0;
  OpStatus st = ctx_->memAddressReserve(c.size(), c.alignment(), &addr);
  if (st.ok()) {
    reservations_[addr] = c.size();
    a.result.addr = addr;
    a.give();
  }
  return st;
}

OpStatus Executor::handle(const wire::MemAddressFree &c, Answer &) {
  auto it = reservations_.find(c.addr());
  if (it == reservations_.end() || it->second != c.size())
    return fail(kErrInvalidValue, range(c.addr(), c.size()) +
                                      " is not a reservation of this session");
  auto m = mappings_.lower_bound(c.addr());
  if (m != mappings_.end() && m->first - c.addr() < c.size())
    return fail(kErrInvalidValue, "the range still has a mapping at " +
                                      hexAddress(m->first) +
                                      " (cuMemUnmap it first)");
  OpStatus st = ctx_->memAddressFree(c.addr(), c.size());
  if (st.ok())
    reservations_.erase(it);
  return st;
}

OpStatus Executor::handle(const wire::MemCreate &c, Answer &) {
  if (c.handle() == 0 || physical_.count(c.handle()))
    return fail(kErrInvalidValue, "allocation handle " +
                                      hexAddress(c.handle()) +
                                      " is reserved or already in use");
  // Physical memory lives on prop.location.id's device.
  OpStatus st = bind(c.device());
  if (!st.ok())
    return st;
  if (c.size() == 0 || c.size() > boundDevice().totalMem)
    return fail(kErrMemoryAllocation, std::to_string(c.size()) +
                                          " bytes: zero or more than the "
                                          "device memory");
  Physical p;
  p.size = c.size();
  p.device = bound_;
  st = ctx_->memCreate(c.size(), &p.native);
  if (st.ok())
    physical_[c.handle()] = p;
  return st;
}

OpStatus Executor::handle(const wire::MemRelease &c, Answer &) {
  auto it = physical_.find(c.handle());
  if (it == physical_.end())
    return fail(kErrInvalidValue,
                "unknown allocation handle " + hexAddress(c.handle()));
  // Mappings keep the memory alive, as in CUDA: only the handle goes.
  OpStatus st = bind(it->second.device);
  if (!st.ok())
    return st;
  st = ctx_->memRelease(it->second.native);
  if (st.ok())
    physical_.erase(it);
  return st;
}

OpStatus Executor::handle(const wire::MemMap &c, Answer &) {
  auto p = physical_.find(c.handle());
  if (p == physical_.end())
    return fail(kErrInvalidValue,
                "unknown allocation handle " + hexAddress(c.handle()));
  if (c.size() == 0 || c.offset() > p->second.size ||
      c.size() > p->second.size - c.offset())
    return fail(kErrInvalidValue, "offset " + std::to_string(c.offset()) +
                                      " + " + std::to_string(c.size()) +
                                      " bytes exceed the allocation's " +
                                      std::to_string(p->second.size));
  auto res = reservations_.upper_bound(c.addr());
  bool inside = res != reservations_.begin();
  if (inside) {
    --res;
    uint64_t off = c.addr() - res->first;
    inside = off < res->second && c.size() <= res->second - off;
  }
  if (!inside)
    return fail(kErrInvalidValue, range(c.addr(), c.size()) +
                                      " is not inside one reservation of "
                                      "this session");
  auto next = mappings_.lower_bound(c.addr());
  bool overlaps = next != mappings_.end() && next->first - c.addr() < c.size();
  if (next != mappings_.begin()) {
    auto prev = std::prev(next);
    overlaps = overlaps || prev->first + prev->second.size > c.addr();
  }
  if (overlaps)
    return fail(kErrInvalidValue,
                range(c.addr(), c.size()) + " overlaps an existing mapping");
  OpStatus st = ctx_->memMap(c.addr(), c.size(), c.offset(), p->second.native);
  if (st.ok())
    mappings_[c.addr()] = Mapping{c.size(), false, p->second.device};
  return st;
}

OpStatus Executor::handle(const wire::MemUnmap &c, Answer &) {
  std::vector<uint64_t> bases;
  if (!wholeMappings(c.addr(), c.size(), &bases))
    return notWholeMappings(c.addr(), c.size());
  OpStatus st = ctx_->memUnmap(c.addr(), c.size());
  if (st.ok())
    for (uint64_t b : bases)
      mappings_.erase(b);
  return st;
}

OpStatus Executor::handle(const wire::MemSetAccess &c, Answer &) {
  std::vector<uint64_t> bases;
  if (!wholeMappings(c.addr(), c.size(), &bases))
    return notWholeMappings(c.addr(), c.size());
  std::vector<int> devices;
  if (c.devices())
    devices.assign(c.devices()->begin(), c.devices()->end());
  if (devices.empty())
    devices.push_back(current_);
  OpStatus st;
  for (int d : devices)
    if (!(st = checkDevice(d)).ok())
      return st;
  st = ctx_->memSetAccess(c.addr(), c.size(), devices);
  if (st.ok())
    for (uint64_t b : bases)
      mappings_[b].access = true;
  return st;
}

} // namespace rc::server
