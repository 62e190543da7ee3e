// Exported stream and event calls.
#include "api/global.h"
#include "api/stream_devices.h"
#include "core/enum_number.h"

using rc::rt::record;
using rc::rt::runtime;

namespace {
// A stream is created on the calling thread's device (api/stream_devices.h).
cudaError_t createStream(cudaStream_t *stream, unsigned flags, int priority) {
  cudaError_t err = runtime().streams().streamCreate(stream, flags, priority);
  int device = 0;
  if (err == cudaSuccess && runtime().getDevice(&device) == cudaSuccess)
    rc::rt::StreamDevices::instance().created(*stream, device);
  return err;
}
} // namespace

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return record(createStream(stream, 0, 0));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream,
                                      unsigned int flags) {
  return record(createStream(stream, flags, 0));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream,
                                         unsigned int flags, int priority) {
  return record(createStream(stream, flags, priority));
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  // CUDA's range on every current GPU; the server clamps anyway.
  if (least)
    *least = 0;
  if (greatest)
    *greatest = rc::rt::kGreatestStreamPriority;
  return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags) {
  int priority;
  if (!flags)
    return record(cudaErrorInvalidValue);
  return record(
      runtime().streams().streamFlagsAndPriority(stream, flags, &priority));
}

// The attribute is read as a number: a program may pass any (enum_number.h).
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *value) {
  return record(runtime().streams().streamSetAttribute(
      stream, rc::rt::enumNumber(attr), value, false));
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   cudaStreamAttrValue *value) {
  return record(runtime().streams().streamGetAttribute(
      stream, rc::rt::enumNumber(attr), value, false));
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority) {
  unsigned flags;
  if (!priority)
    return record(cudaErrorInvalidValue);
  return record(
      runtime().streams().streamFlagsAndPriority(stream, &flags, priority));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  cudaError_t err = runtime().streams().streamDestroy(stream);
  if (err == cudaSuccess)
    rc::rt::StreamDevices::instance().destroyed(stream);
  return record(err);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return record(runtime().streams().streamSynchronize(stream, false));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  // NotReady is an answer, not an error: it does not become the last error.
  cudaError_t e = runtime().streams().streamQuery(stream, false);
  return e == cudaErrorNotReady ? e : record(e);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int flags) {
  return record(
      runtime().streams().streamWaitEvent(stream, event, flags, false));
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return record(runtime().streams().eventCreate(event, 0));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  return record(runtime().streams().eventCreate(event, flags));
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return record(runtime().streams().eventDestroy(event));
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return record(runtime().streams().eventRecord(event, stream, false));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                     unsigned int flags) {
  if (flags != 0) // cudaEventRecordExternal is a graph-capture flag
    return record(cudaErrorInvalidValue);
  return record(runtime().streams().eventRecord(event, stream, false));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return record(runtime().streams().eventSynchronize(event));
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  cudaError_t e = runtime().streams().eventQuery(event);
  return e == cudaErrorNotReady ? e : record(e);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                 cudaEvent_t end) {
  return record(runtime().streams().eventElapsedTime(ms, start, end));
}

} // extern "C"
