// The driver VMM calls ggml's memory pool makes (cuMemAddressReserve,
// cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease,
// cuMemAddressFree). Every range and handle is checked against the
// session's own VMM state (vmm_table.h, in the allocation table) before
// the backend acts, and mapped ranges with access enabled count as session
// memory for copies and launch pointers (VmmTable::contains).
#ifndef RC_SERVER_VMM_COMMANDS_H
#define RC_SERVER_VMM_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/cache_commands.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "protocol_generated.h"

namespace rc::server {

class VmmCommands {
public:
  VmmCommands(DeviceBinding &devices, AllocationTable &memory,
              CacheCommands &cache)
      : devices_(devices), memory_(memory), cache_(cache) {}

  OpStatus handle(const wire::MemAddressReserve &c, CommandAnswer &a);
  OpStatus handle(const wire::MemAddressFree &c, CommandAnswer &a);
  OpStatus handle(const wire::MemCreate &c, CommandAnswer &a);
  OpStatus handle(const wire::MemRelease &c, CommandAnswer &a);
  OpStatus handle(const wire::MemMap &c, CommandAnswer &a);
  OpStatus handle(const wire::MemUnmap &c, CommandAnswer &a);
  OpStatus handle(const wire::MemSetAccess &c, CommandAnswer &a);

private:
  DeviceBinding &devices_;
  AllocationTable &memory_;
  CacheCommands &cache_;
};

} // namespace rc::server

#endif
