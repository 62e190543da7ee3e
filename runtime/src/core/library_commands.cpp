// Commands of the libraries layered on the runtime (librc_cublas): they go
// into the same batch as launches, in program order, with no round trip, or
// into the graph a stream is capturing (docs/graphs.md). And questions a
// call asks the server's driver, answered in one round trip.
#include "core/libraries.h"

#include "core/runtime.h"
#include "rc/command_table.h"

#include <string>

namespace rc::rt {

cudaError_t Libraries::appendCommand(wire::Command type, const char *call,
                                     cudaStream_t stream,
                                     const CommandBuilder &build) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t sid = 0;
  if (cudaError_t err =
          rt_.streams_.wireStreamLocked(stream, /*perThread=*/false, &sid))
    return err;
  if (wire::commandInfo(type)->graphNode &&
      rt_.graphs_.stateLocked().capturing(sid)) {
    bool captured;
    return rt_.graphs_.captureLocked(
        sid, GraphNode::libraryCommand(type, build), &captured);
  }
  // Refuse rather than run it outside the graph being captured.
  std::string why = std::string(call) +
                    " (of the cuBLAS calls only GEMMs can be captured into "
                    "graphs)";
  if (cudaError_t err = rt_.graphs_.refuseInCaptureLocked(sid, why.c_str()))
    return err;
  rt_.ensureDeviceLocked();
  flatbuffers::Offset<void> cmd = build(rt_.batch_.fbb(), sid);
  rt_.appendLocked(type, cmd, {call, 0});
  rt_.afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Libraries::askServer(wire::Command type, const char *call,
                                 const CommandBuilder &build,
                                 uint64_t *answer) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  return rt_.askLocked(type, build(rt_.batch_.fbb(), 0), call, answer, nullptr);
}

} // namespace rc::rt
