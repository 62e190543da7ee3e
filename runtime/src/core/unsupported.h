// The one way the runtime refuses a CUDA call it does not implement: print
// "remote-clang: <call> is not supported by the remote runtime" once per
// call name and return cudaErrorNotSupported.
#ifndef RC_RT_UNSUPPORTED_H
#define RC_RT_UNSUPPORTED_H

#include <driver_types.h>

namespace rc::rt {

cudaError_t reportUnsupported(const char *call);

} // namespace rc::rt

// Exported for librc_cublas / librc_cuda, which share the message and the
// print-once bookkeeping. Returns nonzero the first time `call` is reported.
extern "C" int __rc_report_unsupported(const char *call, const char *library);

#endif
