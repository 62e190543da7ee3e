// The driver VMM calls (vmm_commands.h says what is checked).
#include "executor/vmm_commands.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <cuda.h>

namespace rc::server {

namespace {

constexpr uint64_t kMaxReserveAlignment = uint64_t(1) << 40;

std::string range(uint64_t addr, uint64_t size) {
  return hexAddress(addr) + " + " + std::to_string(size) + " bytes";
}

OpStatus notWholeMappings(uint64_t addr, uint64_t size) {
  return OpStatus::fail(kErrInvalidValue,
                        range(addr, size) +
                            " is not a run of whole mappings of "
                            "this session");
}

} // namespace

OpStatus VmmCommands::handle(const wire::MemAddressReserve &c,
                             CommandAnswer &a) {
  if (c.size() == 0)
    return OpStatus::fail(kErrInvalidValue, "size 0");
  // 0 (the granularity) or a power of two, as the driver takes it; at
  // most 1 TiB, so that rounding an address up cannot wrap around.
  if ((c.alignment() & (c.alignment() - 1)) != 0 ||
      c.alignment() > kMaxReserveAlignment)
    return OpStatus::fail(kErrInvalidValue,
                          "alignment " + std::to_string(c.alignment()) +
                              " is not 0 or a power of two up to 1 TiB");
  uint64_t addr = 0;
  OpStatus st =
      devices_.ctx()->memAddressReserve(c.size(), c.alignment(), &addr);
  if (st.ok()) {
    memory_.vmm().addReservation(addr, c.size());
    a.result.addr = addr;
    a.give();
  }
  return st;
}

OpStatus VmmCommands::handle(const wire::MemAddressFree &c, CommandAnswer &) {
  if (!memory_.vmm().isReservation(c.addr(), c.size()))
    return OpStatus::fail(kErrInvalidValue,
                          range(c.addr(), c.size()) +
                              " is not a reservation of this session");
  uint64_t mapped = 0;
  if (memory_.vmm().firstMappingIn(c.addr(), c.size(), &mapped))
    return OpStatus::fail(kErrInvalidValue,
                          "the range still has a mapping at " +
                              hexAddress(mapped) + " (cuMemUnmap it first)");
  OpStatus st = devices_.ctx()->memAddressFree(c.addr(), c.size());
  if (st.ok())
    memory_.vmm().removeReservation(c.addr());
  return st;
}

OpStatus VmmCommands::handle(const wire::MemCreate &c, CommandAnswer &a) {
  if (c.handle() == 0 || memory_.vmm().physical(c.handle()))
    return OpStatus::fail(kErrInvalidValue,
                          "allocation handle " + hexAddress(c.handle()) +
                              " is reserved or already in use");
  // Physical memory lives on prop.location.id's device.
  OpStatus st = devices_.bind(c.device());
  if (!st.ok())
    return st;
  if (c.size() == 0 || c.size() > devices_.boundDevice().totalMem)
    return OpStatus::fail(kErrMemoryAllocation,
                          std::to_string(c.size()) +
                              " bytes: zero or more than the "
                              "device memory");
  VmmTable::Physical p;
  p.size = c.size();
  p.device = devices_.bound();
  std::string why;
  if (!(p.charge = HeldBytes::take(memory_.budgets(), c.size(), &why)))
    return OpStatus::fail(kErrMemoryAllocation, why);
  if (c.compression() != 0 && c.compression() != CU_MEM_ALLOCATION_COMP_GENERIC)
    return OpStatus::fail(kErrInvalidValue,
                          "compression type " +
                              std::to_string(c.compression()) +
                              " is not CU_MEM_ALLOCATION_COMP_GENERIC");
  bool compressed = false;
  st = devices_.ctx()->memCreate(c.size(), c.compression() != 0, &p.native,
                                 &compressed);
  if (st.ok())
    memory_.vmm().addPhysical(c.handle(), p);
  if (st.ok() && c.compression() != 0) {
    a.result.value = compressed ? CU_MEM_ALLOCATION_COMP_GENERIC : 0;
    a.give();
  }
  return st;
}

OpStatus VmmCommands::handle(const wire::MemRelease &c, CommandAnswer &) {
  const VmmTable::Physical *p = memory_.vmm().physical(c.handle());
  if (!p)
    return OpStatus::fail(kErrInvalidValue, "unknown allocation handle " +
                                                hexAddress(c.handle()));
  // Mappings keep the memory alive, as in CUDA: only the handle goes.
  OpStatus st = devices_.bind(p->device);
  if (!st.ok())
    return st;
  st = devices_.ctx()->memRelease(p->native);
  if (st.ok())
    memory_.vmm().removePhysical(c.handle());
  return st;
}

OpStatus VmmCommands::handle(const wire::MemMap &c, CommandAnswer &) {
  const VmmTable::Physical *p = memory_.vmm().physical(c.handle());
  if (!p)
    return OpStatus::fail(kErrInvalidValue, "unknown allocation handle " +
                                                hexAddress(c.handle()));
  if (c.size() == 0 || c.offset() > p->size || c.size() > p->size - c.offset())
    return OpStatus::fail(kErrInvalidValue,
                          "offset " + std::to_string(c.offset()) + " + " +
                              std::to_string(c.size()) +
                              " bytes exceed the allocation's " +
                              std::to_string(p->size));
  if (!memory_.vmm().insideOneReservation(c.addr(), c.size()))
    return OpStatus::fail(kErrInvalidValue,
                          range(c.addr(), c.size()) +
                              " is not inside one reservation of "
                              "this session");
  if (memory_.vmm().overlapsMapping(c.addr(), c.size()))
    return OpStatus::fail(kErrInvalidValue,
                          range(c.addr(), c.size()) +
                              " overlaps an existing mapping");
  OpStatus st =
      devices_.ctx()->memMap(c.addr(), c.size(), c.offset(), p->native);
  if (st.ok())
    memory_.vmm().addMapping(c.addr(), c.size(), p->device, p->charge);
  return st;
}

OpStatus VmmCommands::handle(const wire::MemUnmap &c, CommandAnswer &) {
  std::vector<uint64_t> bases;
  if (!memory_.vmm().wholeMappings(c.addr(), c.size(), &bases))
    return notWholeMappings(c.addr(), c.size());
  cache_.settleCopies(true); // none may read memory that is unmapped
  OpStatus st = devices_.ctx()->memUnmap(c.addr(), c.size());
  if (st.ok())
    memory_.vmm().removeMappings(bases);
  return st;
}

OpStatus VmmCommands::handle(const wire::MemSetAccess &c, CommandAnswer &) {
  std::vector<uint64_t> bases;
  if (!memory_.vmm().wholeMappings(c.addr(), c.size(), &bases))
    return notWholeMappings(c.addr(), c.size());
  std::vector<int> devices;
  if (c.devices())
    devices.assign(c.devices()->begin(), c.devices()->end());
  if (devices.empty())
    devices.push_back(devices_.current());
  OpStatus st;
  for (int d : devices)
    if (!(st = devices_.checkDevice(d)).ok())
      return st;
  st = devices_.ctx()->memSetAccess(c.addr(), c.size(), devices);
  if (st.ok())
    memory_.vmm().enableAccess(bases);
  return st;
}

} // namespace rc::server
