// Exported stream and event calls.
#include "api/global.h"
#include "core/enum_number.h"

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return record(runtime().streamCreate(stream, 0, 0));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream,
                                      unsigned int flags) {
  return record(runtime().streamCreate(stream, flags, 0));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream,
                                         unsigned int flags, int priority) {
  return record(runtime().streamCreate(stream, flags, priority));
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
  return record(runtime().streamFlagsAndPriority(stream, flags, &priority));
}

// The attribute is read as a number: a program may pass any (enum_number.h).
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *value) {
  return record(runtime().streamSetAttribute(stream, rc::rt::enumNumber(attr),
                                             value, false));
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   cudaStreamAttrValue *value) {
  return record(runtime().streamGetAttribute(stream, rc::rt::enumNumber(attr),
                                             value, false));
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority) {
  unsigned flags;
  if (!priority)
    return record(cudaErrorInvalidValue);
  return record(runtime().streamFlagsAndPriority(stream, &flags, priority));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return record(runtime().streamDestroy(stream));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return record(runtime().streamSynchronize(stream, false));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  // NotReady is an answer, not an error: it does not become the last error.
  cudaError_t e = runtime().streamQuery(stream, false);
  return e == cudaErrorNotReady ? e : record(e);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int flags) {
  return record(runtime().streamWaitEvent(stream, event, flags, false));
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return record(runtime().eventCreate(event, 0));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  return record(runtime().eventCreate(event, flags));
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return record(runtime().eventDestroy(event));
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return record(runtime().eventRecord(event, stream, false));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                     unsigned int flags) {
  if (flags != 0) // cudaEventRecordExternal is a graph-capture flag
    return record(cudaErrorInvalidValue);
  return record(runtime().eventRecord(event, stream, false));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return record(runtime().eventSynchronize(event));
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  cudaError_t e = runtime().eventQuery(event);
  return e == cudaErrorNotReady ? e : record(e);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                 cudaEvent_t end) {
  return record(runtime().eventElapsedTime(ms, start, end));
}

} // extern "C"
