// The device memory a session may name (docs/server-internals/bounds.md,
// "Validation rules"): its allocations, the variables it resolved, and its
// mapped VMM ranges. Every copied range and every pointer a command or a
// kernel's arguments carry is checked here before the backend acts, which
// is what keeps one session's commands out of another's memory.
#ifndef RC_SERVER_ALLOCATION_TABLE_H
#define RC_SERVER_ALLOCATION_TABLE_H

#include "executor/vmm_table.h"
#include "rc/server/limits.h"

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

namespace rc::server {

class AllocationTable {
public:
  struct Range {
    uint64_t size = 0;
    int device = 0;
    std::shared_ptr<const HeldBytes> charge; // of budgets()
  };
  // What the session's device memory is charged to (cudaMalloc, VMM,
  // arrays): its tenant's quota.
  void setBudgets(BudgetSet budgets) { budgets_ = std::move(budgets); }
  BudgetSet &budgets() { return budgets_; }

  // [addr, addr+size) lies inside one allocation or resolved variable of
  // this session, or in its mapped VMM memory (size 0: addr itself may be
  // one past the end); *device: the device whose memory it is.
  bool inSession(uint64_t addr, uint64_t size, int *device = nullptr) const;
  // The same as a command's error naming `role` ("destination").
  OpStatus checkRange(const char *role, uint64_t addr, uint64_t size,
                      int *device = nullptr) const;

  // cudaMalloc's allocations by base address (null: none there).
  void addAllocation(uint64_t base, Range r) {
    allocations_[base] = std::move(r);
  }
  const Range *allocation(uint64_t base) const;
  void removeAllocation(uint64_t base) { allocations_.erase(base); }

  // A variable's address on a device, once resolved: each context has its
  // own copy, and kernels may be handed its address (cudaGetSymbolAddress).
  bool symbolAddress(int device, uint64_t id, uint64_t *addr) const;
  void addSymbol(int device, uint64_t id, uint64_t addr, uint64_t size);

  // Driver VMM objects (vmm_table.h; the handlers in vmm_commands.cpp).
  VmmTable &vmm() { return vmm_; }

private:
  BudgetSet budgets_;
  std::map<uint64_t, Range> allocations_;  // base -> size, device
  std::map<uint64_t, Range> symbolRanges_; // address -> size, device
  // (device, variable id) -> (address, size)
  std::map<std::pair<int, uint64_t>, std::pair<uint64_t, uint64_t>> symbols_;
  VmmTable vmm_;
};

} // namespace rc::server

#endif
