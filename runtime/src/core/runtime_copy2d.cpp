// cudaMemcpy2D(Async) and cudaMemcpyPeer(Async). A 2D copy with contiguous
// rows is one ordinary copy; otherwise each row becomes one command (H2D rows
// carry their data inline, D2D rows are device copies, D2H rows are read
// back together: one reply-wanted batch per chunk of rows, each row's
// payload landing at its own destination). No new wire command is needed.
#include "core/runtime.h"

#include <algorithm>
#include <cstring>

namespace rc::rt {

namespace {
uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }
} // namespace

bool pitchedSpan(size_t pitch, size_t width, size_t height, size_t *span) {
  return !__builtin_mul_overflow(pitch, height - 1, span) &&
         !__builtin_add_overflow(*span, width, span);
}

cudaError_t Runtime::memcpy2D(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream,
                              bool async, bool perThread) {
  const char *call = async ? "cudaMemcpy2DAsync" : "cudaMemcpy2D";
  if (width == 0 || height == 0)
    return cudaSuccess;
  if (!dst || !src)
    return cudaErrorInvalidValue;
  if (width > dpitch || width > spitch)
    return cudaErrorInvalidPitchValue;
  size_t dspan, sspan;
  if (!pitchedSpan(dpitch, width, height, &dspan) ||
      !pitchedSpan(spitch, width, height, &sspan))
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (dpitch == width && spitch == width) // contiguous: one plain copy
    return memcpyLocked(dst, src, width * height, kind, stream, async,
                        perThread, call);
  if (kind == cudaMemcpyDefault) {
    bool d = isDevicePointerLocked(dst), s = isDevicePointerLocked(src);
    kind = d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
             : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  kind = managed_.copyKind(dst, src, kind); // as memcpyLocked does
  // Every row is checked before the first is sent.
  bool deviceSrc =
           kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice,
       deviceDst =
           kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  if (deviceSrc || deviceDst)
    if (cudaError_t err = ensureConnectedLocked())
      return err;
  if (deviceSrc)
    if (cudaError_t err = checkDeviceRangeLocked(call, "source", src, sspan))
      return err;
  if (deviceDst)
    if (cudaError_t err =
            checkDeviceRangeLocked(call, "destination", dst, dspan))
      return err;
  auto *out = static_cast<uint8_t *>(dst);
  const auto *in = static_cast<const uint8_t *>(src);
  if (kind != cudaMemcpyDeviceToHost) {
    // Rows are asynchronous copies; a synchronous 2D copy then syncs once.
    for (size_t r = 0; r < height; ++r)
      if (cudaError_t err =
              memcpyLocked(out + r * dpitch, in + r * spitch, width, kind,
                           stream, true, perThread, call))
        return err;
    if (async || kind == cudaMemcpyHostToHost ||
        kind == cudaMemcpyDeviceToDevice)
      return cudaSuccess;
    return roundTripLocked({}, /*sync=*/true);
  }

  uint64_t sid;
  if (cudaError_t err = streams_.connectedStreamLocked(stream, perThread, &sid))
    return err;
  if (cudaError_t err = graphs_.refuseInCaptureLocked(sid, call))
    return err;
  ensureDeviceLocked();
  // Device to host: rows of one chunk share a reply-wanted batch.
  managed_.prepareHostWrite(dst, dspan); // memory attached to the host
  ReadbackBatches batches(*this);
  for (size_t r = 0; r < height; ++r) {
    for (size_t off = 0; off < width; off += opts_.chunkBytes) {
      size_t n = std::min(opts_.chunkBytes, width - off);
      if (cudaError_t err = batches.room(n))
        return err;
      Sink sink;
      sink.index =
          appendLocked(wire::Command::MemcpyD2H,
                       wire::CreateMemcpyD2H(
                           batch_.fbb(), addrOf(in + r * spitch) + off, n, sid)
                           .Union(),
                       {call, 0});
      sink.payload = out + r * dpitch + off;
      sink.payloadSize = n;
      batches.add(sink);
    }
  }
  if (cudaError_t err = batches.send())
    return err;
  if (async)
    return cudaSuccess;
  countRoundTripLocked(call);
  if (cudaError_t err = waitSeqLocked(0, /*all=*/true))
    return err;
  return takePendingErrorLocked();
}

cudaError_t Runtime::ReadbackBatches::room(size_t bytes) {
  if (pending_ + bytes > rt_.opts_.chunkBytes ||
      sinks_.size() + 1 >= rt_.opts_.maxCommands)
    return send();
  return cudaSuccess;
}

void Runtime::ReadbackBatches::add(const Sink &sink) {
  sinks_.push_back(sink);
  pending_ += sink.payloadSize;
}

cudaError_t Runtime::ReadbackBatches::send() {
  if (sinks_.empty())
    return cudaSuccess;
  cudaError_t err = rt_.sendBatchLocked(true, std::move(sinks_), nullptr);
  sinks_.clear();
  pending_ = 0;
  return err;
}

cudaError_t Runtime::canAccessPeer(int *canAccess, int device, int peer) {
  if (!canAccess)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  int n = int(props_.size());
  if (device < 0 || device >= n || peer < 0 || peer >= n)
    return cudaErrorInvalidDevice;
  *canAccess = canAccessPeer_[size_t(device)][size_t(peer)] ? 1 : 0;
  return cudaSuccess;
}

// Checked here with cudart's error codes, then batched: the server enables
// access between the session's contexts in order with the other work.
cudaError_t Runtime::setPeerAccess(int peer, bool enable) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  int device = threadDevice(), n = int(props_.size());
  if (peer < 0 || peer >= n || peer == device)
    return cudaErrorInvalidDevice;
  if (!canAccessPeer_[size_t(device)][size_t(peer)])
    return cudaErrorPeerAccessUnsupported;
  auto pair = std::make_pair(device, peer);
  if (enable && peerEnabled_.count(pair))
    return cudaErrorPeerAccessAlreadyEnabled;
  if (!enable && !peerEnabled_.count(pair))
    return cudaErrorPeerAccessNotEnabled;
  ensureDeviceLocked();
  appendLocked(
      wire::Command::PeerAccess,
      wire::CreatePeerAccess(batch_.fbb(), peer, enable).Union(),
      {enable ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess",
       0});
  afterAppendLocked();
  if (enable)
    peerEnabled_.insert(pair);
  else
    peerEnabled_.erase(pair);
  return cudaSuccess;
}

// The server sees where both ranges live and copies between its contexts
// (cuMemcpyPeerAsync) when they are on different devices.
cudaError_t Runtime::memcpyPeer(void *dst, int dstDevice, const void *src,
                                int srcDevice, size_t count,
                                cudaStream_t stream, bool async,
                                bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  int n = int(props_.size());
  if (dstDevice < 0 || dstDevice >= n || srcDevice < 0 || srcDevice >= n)
    return cudaErrorInvalidDevice;
  return memcpyLocked(dst, src, count, cudaMemcpyDeviceToDevice, stream, async,
                      perThread,
                      async ? "cudaMemcpyPeerAsync" : "cudaMemcpyPeer");
}

} // namespace rc::rt
