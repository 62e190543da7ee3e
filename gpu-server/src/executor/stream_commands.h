// The commands on streams, events and devices: creating and destroying
// streams and events, recording, waiting, querying and synchronizing them,
// stream attributes, the current device (SetDevice), peer access, profiler
// control and device limits. Handles are the session's own
// (device_binding.h); a stream sync is deferred (sync_tracker.h).
#ifndef RC_SERVER_STREAM_COMMANDS_H
#define RC_SERVER_STREAM_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/library_calls.h"
#include "executor/sync_tracker.h"
#include "protocol_generated.h"

namespace rc::server {

class StreamCommands {
public:
  StreamCommands(DeviceBinding &devices, AllocationTable &memory,
                 SyncTracker &sync, LibraryCalls &libraries)
      : devices_(devices), memory_(memory), sync_(sync), libraries_(libraries) {
  }

  OpStatus handle(const wire::StreamCreate &c, CommandAnswer &a);
  OpStatus handle(const wire::StreamDestroy &c, CommandAnswer &a);
  OpStatus handle(const wire::StreamSynchronize &c, CommandAnswer &a);
  OpStatus handle(const wire::StreamQuery &c, CommandAnswer &a);
  OpStatus handle(const wire::StreamWaitEvent &c, CommandAnswer &a);
  OpStatus handle(const wire::StreamAttribute &c, CommandAnswer &a);
  OpStatus handle(const wire::EventCreate &c, CommandAnswer &a);
  OpStatus handle(const wire::EventDestroy &c, CommandAnswer &a);
  OpStatus handle(const wire::EventRecord &c, CommandAnswer &a);
  OpStatus handle(const wire::EventSynchronize &c, CommandAnswer &a);
  OpStatus handle(const wire::EventQuery &c, CommandAnswer &a);
  OpStatus handle(const wire::EventElapsedTime &c, CommandAnswer &a);
  OpStatus handle(const wire::DeviceSynchronize &c, CommandAnswer &a);
  OpStatus handle(const wire::SetDevice &c, CommandAnswer &a);
  OpStatus handle(const wire::PeerAccess &c, CommandAnswer &a);
  OpStatus handle(const wire::ProfilerControl &c, CommandAnswer &a);
  OpStatus handle(const wire::DeviceLimit &c, CommandAnswer &a);
  OpStatus handle(const wire::ResetPersistingL2 &c, CommandAnswer &a);

private:
  OpStatus doPeerAccess(const wire::PeerAccess &c);

  DeviceBinding &devices_;
  AllocationTable &memory_;
  SyncTracker &sync_;
  LibraryCalls &libraries_;
};

} // namespace rc::server

#endif
