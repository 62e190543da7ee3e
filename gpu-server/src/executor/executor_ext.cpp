// Commands of ggml-cuda's driver surface beyond the core set:
// cudaFuncSetAttribute, cudaStreamSetAttribute,
// cudaCtxResetPersistingL2Cache, and the driver VMM calls
// (cuMemAddressReserve,
// cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease,
// cuMemAddressFree) that ggml's memory pool makes. The executor validates
// every range and handle against the session's own VMM state (VmmTable)
// before the backend acts, and mapped ranges with access enabled count as
// session memory for copies and launch pointers (VmmTable::contains).
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

const KernelInfo *Executor::sessionKernel(uint64_t id, std::string *why) const {
  return names_.kernel(id, why);
}

OpStatus Executor::handle(const wire::FuncSetAttribute &c, Answer &a) {
  std::string why;
  const KernelInfo *k = sessionKernel(c.kernel_id(), &why);
  if (!k)
    return fail(kErrInvalidDeviceFunction, why);
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
    vmm_.addReservation(addr, c.size());
    a.result.addr = addr;
    a.give();
  }
  return st;
}

OpStatus Executor::handle(const wire::MemAddressFree &c, Answer &) {
  if (!vmm_.isReservation(c.addr(), c.size()))
    return fail(kErrInvalidValue, range(c.addr(), c.size()) +
                                      " is not a reservation of this session");
  uint64_t mapped = 0;
  if (vmm_.firstMappingIn(c.addr(), c.size(), &mapped))
    return fail(kErrInvalidValue, "the range still has a mapping at " +
                                      hexAddress(mapped) +
                                      " (cuMemUnmap it first)");
  OpStatus st = ctx_->memAddressFree(c.addr(), c.size());
  if (st.ok())
    vmm_.removeReservation(c.addr());
  return st;
}

OpStatus Executor::handle(const wire::MemCreate &c, Answer &a) {
  if (c.handle() == 0 || vmm_.physical(c.handle()))
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
  VmmTable::Physical p;
  p.size = c.size();
  p.device = bound_;
  std::string why;
  if (!(p.charge = HeldBytes::take(deviceBudgets_, c.size(), &why)))
    return fail(kErrMemoryAllocation, why);
  if (c.compression() != 0 && c.compression() != CU_MEM_ALLOCATION_COMP_GENERIC)
    return fail(kErrInvalidValue, "compression type " +
                                      std::to_string(c.compression()) +
                                      " is not CU_MEM_ALLOCATION_COMP_GENERIC");
  bool compressed = false;
  st = ctx_->memCreate(c.size(), c.compression() != 0, &p.native, &compressed);
  if (st.ok())
    vmm_.addPhysical(c.handle(), p);
  if (st.ok() && c.compression() != 0) {
    a.result.value = compressed ? CU_MEM_ALLOCATION_COMP_GENERIC : 0;
    a.give();
  }
  return st;
}

OpStatus Executor::handle(const wire::MemRelease &c, Answer &) {
  const VmmTable::Physical *p = vmm_.physical(c.handle());
  if (!p)
    return fail(kErrInvalidValue,
                "unknown allocation handle " + hexAddress(c.handle()));
  // Mappings keep the memory alive, as in CUDA: only the handle goes.
  OpStatus st = bind(p->device);
  if (!st.ok())
    return st;
  st = ctx_->memRelease(p->native);
  if (st.ok())
    vmm_.removePhysical(c.handle());
  return st;
}

OpStatus Executor::handle(const wire::MemMap &c, Answer &) {
  const VmmTable::Physical *p = vmm_.physical(c.handle());
  if (!p)
    return fail(kErrInvalidValue,
                "unknown allocation handle " + hexAddress(c.handle()));
  if (c.size() == 0 || c.offset() > p->size || c.size() > p->size - c.offset())
    return fail(kErrInvalidValue, "offset " + std::to_string(c.offset()) +
                                      " + " + std::to_string(c.size()) +
                                      " bytes exceed the allocation's " +
                                      std::to_string(p->size));
  if (!vmm_.insideOneReservation(c.addr(), c.size()))
    return fail(kErrInvalidValue, range(c.addr(), c.size()) +
                                      " is not inside one reservation of "
                                      "this session");
  if (vmm_.overlapsMapping(c.addr(), c.size()))
    return fail(kErrInvalidValue,
                range(c.addr(), c.size()) + " overlaps an existing mapping");
  OpStatus st = ctx_->memMap(c.addr(), c.size(), c.offset(), p->native);
  if (st.ok())
    vmm_.addMapping(c.addr(), c.size(), p->device, p->charge);
  return st;
}

OpStatus Executor::handle(const wire::MemUnmap &c, Answer &) {
  std::vector<uint64_t> bases;
  if (!vmm_.wholeMappings(c.addr(), c.size(), &bases))
    return notWholeMappings(c.addr(), c.size());
  settleCacheCopies(true); // none may read memory that is unmapped
  OpStatus st = ctx_->memUnmap(c.addr(), c.size());
  if (st.ok())
    vmm_.removeMappings(bases);
  return st;
}

OpStatus Executor::handle(const wire::MemSetAccess &c, Answer &) {
  std::vector<uint64_t> bases;
  if (!vmm_.wholeMappings(c.addr(), c.size(), &bases))
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
    vmm_.enableAccess(bases);
  return st;
}

// The attributes a stream takes. An access policy window makes L2 keep
// lines of one range: the range must be the session's own memory.
OpStatus Executor::handle(const wire::StreamAttribute &c, Answer &) {
  NativeHandle s = 0;
  OpStatus st = bindStream(c.stream(), &s);
  if (!st.ok())
    return st;
  StreamAttributeValue v;
  v.attribute = c.attribute();
  switch (v.attribute) {
  case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    v.windowBase = c.window_base();
    v.windowBytes = c.window_bytes();
    v.hitRatio = c.hit_ratio();
    v.hitProperty = c.hit_property();
    v.missProperty = c.miss_property();
    if (!(v.hitRatio >= 0.0f && v.hitRatio <= 1.0f) || v.hitProperty < 0 ||
        v.hitProperty > 2 || v.missProperty < 0 || v.missProperty > 2)
      return fail(kErrInvalidValue,
                  "access policy window: hit ratio outside [0, 1] or an "
                  "unknown access property");
    if (v.windowBytes &&
        !(st = checkRange("access policy window", v.windowBase, v.windowBytes))
             .ok())
      return st;
    break;
  case CU_STREAM_ATTRIBUTE_PRIORITY:
    v.value = streamPriority_.value_or(c.value());
    break;
  case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
    v.value = c.value();
    break;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    v.domainDefault = c.domain_default();
    v.domainRemote = c.domain_remote();
    break;
  default:
    return fail(kErrInvalidValue, "attribute " + std::to_string(v.attribute) +
                                      " is not one a stream takes");
  }
  return ctx_->streamSetAttribute(s, v);
}

OpStatus Executor::handle(const wire::ResetPersistingL2 &, Answer &) {
  return ctx_->resetPersistingL2();
}

} // namespace rc::server
