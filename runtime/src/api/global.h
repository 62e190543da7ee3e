// The process-wide runtime behind the exported CUDA API, and the per-thread
// last error that cudaGetLastError / cudaPeekAtLastError report.
#ifndef RC_RT_GLOBAL_H
#define RC_RT_GLOBAL_H

#include "core/runtime.h"

namespace rc::rt {

// Created on first use from the environment (RC_SERVER, RC_MANIFEST, ...);
// shut down (flush + Goodbye) by an atexit handler, never destroyed, so
// late calls from static destructors fail cleanly instead of crashing.
Runtime &runtime();
// Tests: replace the global runtime (the old one is shut down).
void installRuntimeForTest(std::unique_ptr<Runtime> rt);

cudaError_t &lastError();
// Every API entry point returns through this: a failure becomes the
// thread's last error.
inline cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess)
    lastError() = e;
  return e;
}

} // namespace rc::rt

#endif
