// A session's driver VMM objects (cuMemAddressReserve, cuMemCreate,
// cuMemMap, cuMemSetAccess, as ggml's memory pool uses them): what it
// reserved, created and mapped, and which mapped bytes its commands may
// touch. Bookkeeping only: the backend acts, the executor's handlers
// (vmm_commands.cpp) ask this whether a command names only the session's
// own objects, and the pointer checks ask it about mapped memory.
#ifndef RC_SERVER_VMM_TABLE_H
#define RC_SERVER_VMM_TABLE_H

#include "rc/server/backend.h"
#include "rc/server/limits.h"

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace rc::server {

class VmmTable {
public:
  struct Physical {
    NativeHandle native = 0;
    uint64_t size = 0;
    int device = 0; // where the memory is
    // Its memory against the session's device budgets: held by the handle
    // and by each mapping of it, as the memory itself is.
    std::shared_ptr<const HeldBytes> charge;
  };

  // Reserved address ranges.
  void addReservation(uint64_t base, uint64_t size) {
    reservations_[base] = size;
  }
  // Exactly one reservation: its base and its size.
  bool isReservation(uint64_t base, uint64_t size) const;
  void removeReservation(uint64_t base) { reservations_.erase(base); }
  // [addr, addr+size) lies inside one reservation.
  bool insideOneReservation(uint64_t addr, uint64_t size) const;

  // Physical allocations by the client's handle; null: none.
  const Physical *physical(uint64_t handle) const;
  void addPhysical(uint64_t handle, const Physical &p) {
    physical_[handle] = p;
  }
  void removePhysical(uint64_t handle) { physical_.erase(handle); }

  // Mappings. A new one has access off until enableAccess; it holds the
  // charge of the memory it maps (Physical::charge).
  void addMapping(uint64_t base, uint64_t size, int device,
                  std::shared_ptr<const HeldBytes> charge = nullptr);
  // The lowest mapping base within [addr, addr+size), if any.
  bool firstMappingIn(uint64_t addr, uint64_t size, uint64_t *base) const;
  bool overlapsMapping(uint64_t addr, uint64_t size) const;
  // [addr, addr+size) is exactly a run of whole mappings (size > 0): their
  // bases, for removeMappings or enableAccess.
  bool wholeMappings(uint64_t addr, uint64_t size,
                     std::vector<uint64_t> *bases) const;
  void removeMappings(const std::vector<uint64_t> &bases);
  void enableAccess(const std::vector<uint64_t> &bases);

  // [addr, addr+size) lies in mappings with access enabled that follow
  // each other without a gap (ggml grows its pool back to back, and a
  // buffer may straddle two). A pointer (size 0) may be one past the end,
  // like any allocation's. *device: the first mapping's.
  bool contains(uint64_t addr, uint64_t size, int *device) const;

private:
  struct Mapping {
    uint64_t size = 0;
    bool access = false;
    int device = 0;
    std::shared_ptr<const HeldBytes> charge;
  };
  std::map<uint64_t, uint64_t> reservations_; // base -> size
  std::unordered_map<uint64_t, Physical> physical_;
  std::map<uint64_t, Mapping> mappings_; // base -> mapping
};

} // namespace rc::server

#endif
