// How a runtime call that remote-clang refuses fails: every function
// cuda_runtime_api.h declares that this library does not define gets a
// generated stub (runtime/gen_unsupported_stubs.py) that returns through
// here: cudaErrorNotSupported, also as the thread's last error, and a
// one-time "remote-clang: <call> is not supported by the remote runtime",
// never silently. runtime/coverage/refusals.txt says why each is refused
// (docs/api-coverage.md).
#include "api/global.h"
#include "core/unsupported.h"

extern "C" __attribute__((visibility("default"))) int
__rc_runtime_unsupported(const char *call) {
  return rc::rt::record(rc::rt::reportUnsupported(call));
}
