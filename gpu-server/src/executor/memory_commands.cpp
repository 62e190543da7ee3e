#include "executor/memory_commands.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

namespace rc::server {

OpStatus MemoryCommands::copyD2D(uint64_t dst, uint64_t src, uint64_t size,
                                 NativeHandle s) {
  int from = 0, to = 0;
  OpStatus st;
  if (!(st = memory_.checkRange("source", src, size, &from)).ok() ||
      !(st = memory_.checkRange("destination", dst, size, &to)).ok())
    return st;
  if (from == to && from == devices_.bound())
    return devices_.ctx()->copyD2D(dst, src, size, s);
  // Between devices (cudaMemcpyPeerAsync, or a device-to-device copy of
  // unified addresses): both contexts exist, their memory is there.
  DeviceContext *srcCtx = nullptr, *dstCtx = nullptr;
  // Creating a context makes it current: bind the stream's device again.
  if (!(st = devices_.contextOf(from, &srcCtx)).ok() ||
      !(st = devices_.contextOf(to, &dstCtx)).ok() ||
      !(st = devices_.bind(devices_.bound())).ok())
    return st;
  return devices_.ctx()->copyPeer(dst, *dstCtx, src, *srcCtx, size, s);
}

OpStatus MemoryCommands::variable(uint64_t id, const VariableInfo **out) {
  std::string why;
  const VariableInfo *v = names_.variable(id, &why);
  if (!v)
    return OpStatus::fail(kErrInvalidSymbol, why);
  *out = v;
  return OpStatus::success();
}

OpStatus MemoryCommands::symbol(const VariableInfo &v, uint64_t *addr) {
  if (memory_.symbolAddress(devices_.bound(), v.id, addr))
    return OpStatus::success();
  uint64_t a = 0, size = 0;
  OpStatus st = devices_.ctx()->symbolAddress(v, &a, &size);
  if (!st.ok())
    return st;
  // Kernels may be handed a variable's address (cudaGetSymbolAddress).
  memory_.addSymbol(devices_.bound(), v.id, a, size);
  *addr = a;
  return OpStatus::success();
}

OpStatus MemoryCommands::handle(const wire::Malloc &c, CommandAnswer &a) {
  if (c.size() > devices_.boundDevice().totalMem)
    return OpStatus::fail(kErrMemoryAllocation,
                          std::to_string(c.size()) +
                              " bytes exceed the device memory");
  std::string why;
  std::shared_ptr<const HeldBytes> charge =
      HeldBytes::take(memory_.budgets(), c.size(), &why);
  if (!charge)
    return OpStatus::fail(kErrMemoryAllocation, why);
  uint64_t addr = 0;
  OpStatus st = devices_.ctx()->malloc(c.size(), &addr);
  if (!st.ok())
    return st;
  if (addr)
    memory_.addAllocation(
        addr,
        AllocationTable::Range{c.size(), devices_.bound(), std::move(charge)});
  a.result.addr = addr;
  a.give();
  return st;
}

OpStatus MemoryCommands::handle(const wire::Free &c, CommandAnswer &) {
  if (c.addr() == 0)
    return OpStatus::success(); // cudaFree(nullptr) is a no-op
  const AllocationTable::Range *r = memory_.allocation(c.addr());
  if (!r)
    return OpStatus::fail(kErrInvalidValue,
                          hexAddress(c.addr()) +
                              " is not an allocation of this session");
  // The content cache's copies back run on a stream of their own: none
  // may read memory that is gone.
  cache_.settleCopies(true);
  OpStatus st = devices_.bind(r->device); // cudaFree works from any device
  if (st.ok())
    st = devices_.ctx()->free(c.addr());
  if (st.ok())
    memory_.removeAllocation(c.addr());
  return st;
}

OpStatus MemoryCommands::handle(const wire::MemcpyH2D &c, CommandAnswer &) {
  NativeHandle s = 0;
  bool shared = c.host_region() != 0; // the bytes are in shared host memory
  uint64_t n = shared ? c.size() : c.data() ? c.data()->size() : 0;
  OpStatus st;
  // Zero-byte copies are no-ops, as in CUDA, wherever they point.
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() || n == 0 ||
      !(st = memory_.checkRange("destination", c.dst(), n)).ok())
    return st;
  return shared ? host_.uploadShared(c, n, s)
                : devices_.ctx()->copyH2D(c.dst(), c.data()->data(), n, s);
}

OpStatus MemoryCommands::handle(const wire::MemcpyD2H &c, CommandAnswer &a) {
  bool shared = c.host_region() != 0; // no payload in the reply
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() ||
      (c.size() &&
       !(st = memory_.checkRange("source", c.src(), c.size())).ok()))
    return st;
  st = shared    ? host_.readBackShared(c, s, a.result)
       : c.rma() ? reply_.readBackRemote(c, s, a.result)
                 : reply_.readBack(c.src(), c.size(), s, a.result);
  if (st.ok())
    a.give();
  return st;
}

OpStatus MemoryCommands::handle(const wire::MemcpyD2D &c, CommandAnswer &) {
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() || c.size() == 0)
    return st;
  return copyD2D(c.dst(), c.src(), c.size(), s);
}

OpStatus MemoryCommands::handle(const wire::Memset &c, CommandAnswer &) {
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() || c.size() == 0 ||
      !(st = memory_.checkRange("destination", c.dst(), c.size())).ok())
    return st;
  return devices_.ctx()->memset(c.dst(), c.value(), c.size(), s);
}

OpStatus MemoryCommands::handle(const wire::SymbolWrite &c, CommandAnswer &a) {
  const VariableInfo *v = nullptr;
  uint64_t base = 0, n = c.data() ? c.data()->size() : 0;
  OpStatus st = variable(c.variable_id(), &v);
  if (!st.ok())
    return st;
  *a.what += " (" + v->name + ")";
  if (c.offset() > v->size || n > v->size - c.offset())
    return OpStatus::fail(kErrInvalidValue,
                          "offset " + std::to_string(c.offset()) + " + " +
                              std::to_string(n) +
                              " bytes exceed the variable's " +
                              std::to_string(v->size) + " bytes");
  NativeHandle s = 0;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() ||
      !(st = symbol(*v, &base)).ok() || n == 0)
    return st;
  return devices_.ctx()->copyH2D(base + c.offset(), c.data()->data(), n, s);
}

OpStatus MemoryCommands::handle(const wire::SymbolRead &c, CommandAnswer &a) {
  const VariableInfo *v = nullptr;
  uint64_t base = 0;
  OpStatus st = variable(c.variable_id(), &v);
  if (!st.ok())
    return st;
  *a.what += " (" + v->name + ")";
  if (c.offset() > v->size || c.size() > v->size - c.offset())
    return OpStatus::fail(kErrInvalidValue,
                          "offset " + std::to_string(c.offset()) + " + " +
                              std::to_string(c.size()) +
                              " bytes exceed the variable's " +
                              std::to_string(v->size) + " bytes");
  NativeHandle s = 0;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() ||
      !(st = symbol(*v, &base)).ok())
    return st;
  st = reply_.readBack(base + c.offset(), c.size(), s, a.result);
  if (st.ok())
    a.give();
  return st;
}

OpStatus MemoryCommands::handle(const wire::SymbolAddress &c,
                                CommandAnswer &a) {
  const VariableInfo *v = nullptr;
  uint64_t base = 0;
  OpStatus st;
  if (!(st = variable(c.variable_id(), &v)).ok() ||
      !(st = symbol(*v, &base)).ok())
    return st;
  a.result.addr = base;
  a.result.value = double(v->size);
  a.give();
  return st;
}

} // namespace rc::server
