// Host-side memory registration and host functions in streams.
//
// cudaHostRegister only records the range as pinned (every copy crosses the
// wire anyway, so page-locking has nothing to speed up); the record answers
// cudaPointerGetAttributes and catches double registration like cudart.
//
// cudaLaunchHostFunc / cudaStreamAddCallback: the simplest correct ordering.
// The call synchronizes the stream (one round trip: all earlier work of the
// stream is complete), then runs the function on the calling thread before
// returning, so no later work of this thread can reach the stream before it
// ends. On a capturing stream it becomes a host node, run the same way when
// the graph is launched. The runtime lock is released while it runs (a host
// function that wrongly calls CUDA must not deadlock), so work another thread
// issues to the same stream *during* the function may overlap it.
#include "core/runtime.h"

namespace rc::rt {

cudaError_t Runtime::hostRegister(void *ptr, size_t size, unsigned flags) {
  const unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                         cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
  if (!ptr || size == 0 || (flags & ~known))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  return hostMemory_.registerRange(ptr, size)
             ? cudaSuccess
             : cudaErrorHostMemoryAlreadyRegistered;
}

cudaError_t Runtime::hostUnregister(void *ptr) {
  if (!ptr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (!hostMemory_.unregisterRange(ptr))
    return cudaErrorHostMemoryNotRegistered;
  return cudaSuccess;
}

cudaError_t Runtime::launchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
                                    void *data, bool perThread) {
  if (!fn)
    return cudaErrorInvalidValue;
  {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t sid;
    if (cudaError_t err =
            streams_.connectedStreamLocked(stream, perThread, &sid))
      return err;
    if (graphs_.stateLocked().capturing(
            sid)) { // a host node (graph_runtime.cpp)
      GraphNode node;
      node.host = HostStep::Function;
      node.fn = fn;
      node.userData = data;
      bool captured;
      return graphs_.captureLocked(sid, std::move(node), &captured);
    }
    ensureDeviceLocked();
    appendLocked(wire::Command::StreamSynchronize,
                 wire::CreateStreamSynchronize(batch_.fbb(), sid).Union(),
                 {"cudaLaunchHostFunc", 0});
    // Unlike a stream callback, a host function is not called after an
    // error in the context (CUDA docs); the error is this call's result.
    // The function may read managed memory the stream's work wrote: it is
    // brought back as at any synchronization.
    if (cudaError_t err =
            downloadManagedLocked(roundTripLocked({}, /*sync=*/true)))
      return err;
  }
  fn(data);
  return cudaSuccess;
}

cudaError_t Runtime::streamAddCallback(cudaStream_t stream,
                                       cudaStreamCallback_t callback,
                                       void *data, unsigned flags,
                                       bool perThread) {
  if (!callback || flags != 0)
    return cudaErrorInvalidValue;
  cudaError_t status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t sid;
    if (cudaError_t err =
            streams_.connectedStreamLocked(stream, perThread, &sid))
      return err;
    if (cudaError_t err =
            graphs_.refuseInCaptureLocked(sid, "cudaStreamAddCallback"))
      return err;
    ensureDeviceLocked();
    appendLocked(wire::Command::StreamSynchronize,
                 wire::CreateStreamSynchronize(batch_.fbb(), sid).Union(),
                 {"cudaStreamAddCallback", 0});
    // The callback learns the stream's status, as in CUDA, and may read
    // managed memory: brought back as at any synchronization.
    status = downloadManagedLocked(roundTripLocked({}, /*sync=*/true));
  }
  callback(stream, status, data);
  return cudaSuccess;
}

} // namespace rc::rt
