// What each wire command (schema/protocol.fbs, union Command) means beyond
// its fields, in one table that rc-server and the client runtime both read.
// Before, five switches spread over both sides each ended in `default:`, so
// a command added to the schema but forgotten in one of them compiled and
// silently took that switch's fallback.
//
// Adding a command: its table in protocol.fbs, one row in
// schema/src/command_table.cpp (a static_assert there fails until the row
// is in place, in schema order), one handler in rc-server's dispatch (an
// exhaustive switch, -Werror=switch), and its tests.
#ifndef RC_COMMAND_TABLE_H
#define RC_COMMAND_TABLE_H

#include "protocol_generated.h"

#include <cstdint>

namespace rc::wire {

// What a command leaves on the GPU, as rc-server's deferred-sync
// bookkeeping (gpu-server sync_tracker.cpp) must know it.
enum class GpuWork : uint8_t {
  None,      // nothing: host-side state only, or a wait
  OnStream,  // work on the stream the command names, in stream order
  Untracked, // work the bookkeeping cannot see (a library's own streams,
             // symbol copies, a wait for an event): no stream counts as
             // idle after it until a wait or read-back says so
};

struct CommandInfo {
  Command type;
  // The call the command serves, as errors name it ("cudaMemsetAsync");
  // a handler may name it more exactly (the kernel, the GEMM variant).
  const char *api;
  // The stream handle of a stream-ordered command, or null: the command
  // observes host order, so rc-server first completes every sync it
  // deferred.
  uint64_t (*stream)(const CommandEntry &);
  GpuWork work;
  // Some form of it may be a graph node (captured, or in GraphInstantiate).
  bool graphNode;
  // The client counts it as device work since the last sync: a later sync
  // must reach the server, and the flusher is armed. Conservatively true
  // for all but allocations, uploads (the work that reads them arms the
  // flusher) and syncs.
  bool clientDeviceWork;
};

// The row of a command type, or null for NONE and types this build does
// not know (a newer peer's or a hostile one's).
const CommandInfo *commandInfo(Command type);

// The stream a stream-ordered command names (its `stream` field), or
// false for a command that observes host order.
bool commandStream(const CommandEntry &entry, uint64_t *stream);

} // namespace rc::wire

#endif
