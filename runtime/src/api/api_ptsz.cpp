// The per-thread default stream entry points that code compiled with
// --default-stream per-thread (CUDA_API_PER_THREAD_DEFAULT_STREAM) calls:
// same as the plain calls, but stream 0 means the calling thread's stream.
// The headers only declare them under that macro, so they are declared here.
#include "api/global.h"
#include "core/enum_number.h"

using rc::rt::record;
using rc::rt::runtime;

extern "C" {

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind) {
  return record(runtime().memcpy(dst, src, count, kind, nullptr, false, true));
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                 cudaMemcpyKind kind, cudaStream_t s) {
  return record(runtime().memcpy(dst, src, count, kind, s, true, true));
}

cudaError_t cudaMemset_ptds(void *dst, int value, size_t count) {
  return record(runtime().memset(dst, value, count, nullptr, true));
}

cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t count,
                                 cudaStream_t s) {
  return record(runtime().memset(dst, value, count, s, true));
}

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src,
                                    size_t count, size_t offset,
                                    cudaMemcpyKind kind) {
  return record(runtime().memcpyToSymbol(symbol, src, count, offset, kind,
                                         nullptr, false, true));
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol,
                                      size_t count, size_t offset,
                                      cudaMemcpyKind kind) {
  return record(runtime().memcpyFromSymbol(dst, symbol, count, offset, kind,
                                           nullptr, false, true));
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
                                         size_t count, size_t offset,
                                         cudaMemcpyKind kind, cudaStream_t s) {
  return record(runtime().memcpyToSymbol(symbol, src, count, offset, kind, s,
                                         true, true));
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol,
                                           size_t count, size_t offset,
                                           cudaMemcpyKind kind,
                                           cudaStream_t s) {
  return record(runtime().memcpyFromSymbol(dst, symbol, count, offset, kind, s,
                                           true, true));
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
                                        const cudaStreamAttrValue *value) {
  return record(runtime().streams().streamSetAttribute(
      s, rc::rt::enumNumber(attr), value, true));
}

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
                                        cudaStreamAttrValue *value) {
  return record(runtime().streams().streamGetAttribute(
      s, rc::rt::enumNumber(attr), value, true));
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) {
  return record(runtime().streams().streamSynchronize(s, true));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) {
  cudaError_t e = runtime().streams().streamQuery(s, true);
  return e == cudaErrorNotReady ? e : record(e);
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e,
                                     unsigned int flags) {
  return record(runtime().streams().streamWaitEvent(s, e, flags, true));
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) {
  return record(runtime().streams().eventRecord(e, s, true));
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s,
                                          unsigned int flags) {
  if (flags != 0)
    return record(cudaErrorInvalidValue);
  return record(runtime().streams().eventRecord(e, s, true));
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, int,
                                      cudaStream_t stream) {
  return record(runtime().memPrefetch(devPtr, count, stream, true));
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
                                          size_t length, unsigned int flags) {
  return record(
      runtime().streamAttachMemory(stream, devPtr, length, flags, true));
}

} // extern "C"
