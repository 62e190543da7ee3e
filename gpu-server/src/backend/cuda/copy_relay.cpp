#include "backend/cuda/copy_relay.h"

#include <algorithm>

namespace rc::server {

namespace {

// Below this a copy goes whole over its own link: a relayed part would be
// one chunk at most, whose staging and pull run one after the other.
constexpr uint64_t kMinRelayBytes = 16 << 20;
constexpr unsigned kNonBlocking = 0x1; // CU_STREAM_NON_BLOCKING

} // namespace

CopyRelay::CopyRelay(const CudaDriver &drv, CUcontext session, CUcontext relay)
    : drv_(drv), session_(session), relay_(relay) {}

bool CopyRelay::worthRelaying(uint64_t size) { return size >= kMinRelayBytes; }

bool CopyRelay::setUp(std::string *why) {
  auto failed = [&](const char *what, CUresult r) {
    *why = std::string(what) + ": " + drv_.describe(r);
    drv_.cuCtxSetCurrent(session_);
    return false;
  };
  CUresult r = drv_.cuCtxSetCurrent(relay_);
  if (r == CUDA_SUCCESS)
    r = drv_.cuStreamCreateWithPriority(&stage_, kNonBlocking, 0);
  for (int b = 0; r == CUDA_SUCCESS && b < kBuffers; ++b) {
    r = drv_.cuMemAlloc(&buffers_[b], kChunkBytes);
    if (r == CUDA_SUCCESS)
      r = drv_.cuEventCreate(&staged_[b], CU_EVENT_DISABLE_TIMING);
  }
  if (r != CUDA_SUCCESS)
    return failed("relay buffers on the peer device", r);
  r = drv_.cuCtxSetCurrent(session_);
  if (r == CUDA_SUCCESS)
    r = drv_.cuStreamCreateWithPriority(&pull_, kNonBlocking, 0);
  if (r == CUDA_SUCCESS)
    r = drv_.cuEventCreate(&forked_, CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS)
    r = drv_.cuEventCreate(&joined_, CU_EVENT_DISABLE_TIMING);
  for (int b = 0; r == CUDA_SUCCESS && b < kBuffers; ++b)
    r = drv_.cuEventCreate(&pulled_[b], CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS)
    return failed("relay stream and events", r);
  // The pulls run on the session's GPU, reading the relay buffers over
  // NVLink or PCIe peer to peer.
  r = drv_.cuCtxEnablePeerAccess(relay_, 0);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    return failed("peer access to the relay device", r);
  return true;
}

CopyRelay::~CopyRelay() {
  // Both streams end before what they use goes; the session context's own
  // objects die with it anyway, the relay context's must be freed here.
  drv_.cuCtxSetCurrent(session_);
  if (pull_) {
    drv_.cuStreamSynchronize(pull_);
    drv_.cuStreamDestroy(pull_);
  }
  for (CUevent e : {forked_, joined_})
    if (e)
      drv_.cuEventDestroy(e);
  for (CUevent e : pulled_)
    if (e)
      drv_.cuEventDestroy(e);
  drv_.cuCtxSetCurrent(relay_);
  if (stage_) {
    drv_.cuStreamSynchronize(stage_);
    drv_.cuStreamDestroy(stage_);
  }
  for (int b = 0; b < kBuffers; ++b) {
    if (staged_[b])
      drv_.cuEventDestroy(staged_[b]);
    if (buffers_[b])
      drv_.cuMemFree(buffers_[b]);
  }
  drv_.cuCtxSetCurrent(session_);
}

CUresult CopyRelay::fork(CUstream stream) {
  CUresult r = drv_.cuEventRecord(forked_, stream);
  if (r == CUDA_SUCCESS)
    r = drv_.cuStreamWaitEvent(pull_, forked_, 0);
  if (r == CUDA_SUCCESS) {
    r = drv_.cuCtxSetCurrent(relay_);
    if (r == CUDA_SUCCESS)
      r = drv_.cuStreamWaitEvent(stage_, forked_, 0);
    drv_.cuCtxSetCurrent(session_);
  }
  return r;
}

CUresult CopyRelay::send(CUdeviceptr dst, const uint8_t *src, uint64_t size) {
  CUresult r = CUDA_SUCCESS;
  for (uint64_t at = 0; r == CUDA_SUCCESS && at < size;) {
    uint64_t n = std::min(size - at, kChunkBytes);
    r = relayChunk(next_, dst + at, src + at, n);
    next_ = (next_ + 1) % kBuffers;
    at += n;
  }
  return r;
}

CUresult CopyRelay::join(CUstream stream) {
  CUresult r = drv_.cuEventRecord(joined_, pull_);
  if (r == CUDA_SUCCESS)
    r = drv_.cuStreamWaitEvent(stream, joined_, 0);
  return r;
}

// Stages one chunk in the relay buffer once the buffer's last pull is done,
// then pulls it into place: the relay context's stream for the first, the
// session's pull stream for the second, so the next chunk's staging runs
// while this one is pulled.
CUresult CopyRelay::relayChunk(int buffer, CUdeviceptr dst, const uint8_t *src,
                               uint64_t n) {
  CUresult r = drv_.cuCtxSetCurrent(relay_);
  if (r == CUDA_SUCCESS && used_[buffer])
    r = drv_.cuStreamWaitEvent(stage_, pulled_[buffer], 0);
  if (r == CUDA_SUCCESS)
    r = drv_.cuMemcpyHtoDAsync(buffers_[buffer], src, n, stage_);
  if (r == CUDA_SUCCESS)
    r = drv_.cuEventRecord(staged_[buffer], stage_);
  CUresult back = drv_.cuCtxSetCurrent(session_);
  if (r == CUDA_SUCCESS)
    r = back;
  if (r == CUDA_SUCCESS)
    r = drv_.cuStreamWaitEvent(pull_, staged_[buffer], 0);
  if (r == CUDA_SUCCESS)
    r = drv_.cuMemcpyPeerAsync(dst, session_, buffers_[buffer], relay_, n,
                               pull_);
  if (r == CUDA_SUCCESS)
    r = drv_.cuEventRecord(pulled_[buffer], pull_);
  if (r == CUDA_SUCCESS)
    used_[buffer] = true;
  return r;
}

} // namespace rc::server
