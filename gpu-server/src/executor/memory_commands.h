// The memory commands: cudaMalloc and cudaFree, copies between the host and
// the device or within the device, memsets, and the copies to and from a
// kernel's variables (cudaMemcpyToSymbol and its kin). Every range is the
// session's own (allocation_table.h) before the backend acts.
#ifndef RC_SERVER_MEMORY_COMMANDS_H
#define RC_SERVER_MEMORY_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/cache_commands.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/host_transfers.h"
#include "executor/reply_writer.h"
#include "protocol_generated.h"
#include "rc/server/session_symbols.h"

namespace rc::server {

class MemoryCommands {
public:
  MemoryCommands(const SessionSymbols &names, DeviceBinding &devices,
                 AllocationTable &memory, ReplyWriter &reply,
                 HostTransfers &host, CacheCommands &cache)
      : names_(names), devices_(devices), memory_(memory), reply_(reply),
        host_(host), cache_(cache) {}

  OpStatus handle(const wire::Malloc &c, CommandAnswer &a);
  OpStatus handle(const wire::Free &c, CommandAnswer &a);
  OpStatus handle(const wire::MemcpyH2D &c, CommandAnswer &a);
  OpStatus handle(const wire::MemcpyD2H &c, CommandAnswer &a);
  OpStatus handle(const wire::MemcpyD2D &c, CommandAnswer &a);
  OpStatus handle(const wire::Memset &c, CommandAnswer &a);
  OpStatus handle(const wire::SymbolWrite &c, CommandAnswer &a);
  OpStatus handle(const wire::SymbolRead &c, CommandAnswer &a);
  OpStatus handle(const wire::SymbolAddress &c, CommandAnswer &a);

private:
  // A device-to-device copy, between devices when src and dst differ.
  OpStatus copyD2D(uint64_t dst, uint64_t src, uint64_t size, NativeHandle s);
  OpStatus variable(uint64_t id, const VariableInfo **out);
  // The variable's address on the bound device, resolved on first use.
  OpStatus symbol(const VariableInfo &v, uint64_t *addr);

  const SessionSymbols &names_; // what the client's IDs mean
  DeviceBinding &devices_;
  AllocationTable &memory_;
  ReplyWriter &reply_;
  HostTransfers &host_;
  CacheCommands &cache_;
};

} // namespace rc::server

#endif
