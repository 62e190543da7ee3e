// Library forwarding: the runtime's side of the vendor libraries served
// row by row (library_calls.cpp, docs/libraries.md) and of the
// libraries layered on the runtime that append commands of their own or
// ask the server's driver (library_commands.cpp: librc_cublas, librc_cuda).
// It keeps the library objects' streams and the libraries' static tables.
//
// Locking: guarded by the runtime's lock (runtime.h, "Locking"); the public
// calls take it.
#ifndef RC_RT_LIBRARIES_H
#define RC_RT_LIBRARIES_H

#include "graphs/graph_state.h"
#include "rc_lib_call_abi.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rc::rt {

class Runtime;

class Libraries {
public:
  explicit Libraries(Runtime &rt) : rt_(rt) {}
  Libraries(const Libraries &) = delete;
  Libraries &operator=(const Libraries &) = delete;

  // One call of a served row (rc_lib_call_abi.h says what it does).
  cudaError_t libraryCall(const char *key, const char *params,
                          const RcLibArg *args, int count, bool scalarsOnDevice,
                          int *status);

  // Appends the command `build` serializes into the batch (given the wire
  // id of `stream`); no round trip. `call` (a string literal) names it in
  // error messages. On a capturing stream a command the command table
  // marks as a graph node becomes one (`build` is kept: it must own what it
  // serializes); any other is refused.
  using CommandBuilder = LibraryCommand;
  cudaError_t appendCommand(wire::Command type, const char *call,
                            cudaStream_t stream, const CommandBuilder &build);
  // A question for the server's driver (api/api_driver_queries.cpp): the
  // command `build` serializes (given no stream: 0) is sent at once, on
  // the current device, and *answer is its Result.addr; the server's
  // refusal is the call's error.
  cudaError_t askServer(wire::Command type, const char *call,
                        const CommandBuilder &build, uint64_t *answer);

private:
  Runtime &rt_;
  // A vendor library call that queues device work on a capturing stream:
  // a graph node owning the encoded call.
  cudaError_t captureLibraryCallLocked(uint64_t sid, const std::string &key,
                                       std::vector<uint8_t> args,
                                       bool scalarsOnDevice);
  // Vendor library objects and the stream each was given (captures refuse
  // their calls), and the libraries' static tables (curandGetDirection-
  // Vectors32), by row and arguments.
  std::map<uint64_t, cudaStream_t> libObjectStreams_;
  std::map<std::string, std::vector<uint8_t>> libTables_;
};

} // namespace rc::rt

#endif
