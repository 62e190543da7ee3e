// Commands of the libraries layered on the runtime (librc_cublas): they go
// into the same batch as launches, in program order, with no round trip.
#include "runtime.h"

#include <string>

namespace rc::rt {

cudaError_t Runtime::appendCommand(wire::Command type, const char *call,
                                   cudaStream_t stream,
                                   const CommandBuilder &build) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  uint64_t sid = 0;
  if (cudaError_t err = wireStreamLocked(stream, /*perThread=*/false, &sid))
    return err;
  // A graph node cannot hold a library call yet: refuse rather than run it
  // outside the graph being captured.
  std::string why = std::string(call) + " (library calls cannot be captured "
                                        "into graphs yet)";
  if (cudaError_t err = refuseInCaptureLocked(sid, why.c_str()))
    return err;
  ensureDeviceLocked();
  flatbuffers::Offset<void> cmd = build(batch_.fbb(), sid);
  appendLocked(type, cmd, {call, 0});
  afterAppendLocked();
  return cudaSuccess;
}

} // namespace rc::rt
