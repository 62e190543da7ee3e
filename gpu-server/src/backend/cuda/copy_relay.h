// Multipath host-to-device copies (MMA's idea; docs/server.md, "Multipath
// copies"): a large copy from pinned host memory to a session's GPU sends
// half of its bytes over a peer GPU's own PCIe link into relay buffers
// there, from which the session's GPU pulls them peer to peer (NVLink),
// while the other half comes over its own link. On two H200s joined by
// NVLink the two paths together carried 1.9x one path
// (bench/multipath.sh).
#ifndef RC_SERVER_COPY_RELAY_H
#define RC_SERVER_COPY_RELAY_H

#include "backend/cuda/cuda_driver.h"

#include <cstdint>
#include <string>

namespace rc::server {

// The relay of one session context through a context of the backend on a
// peer device (shared by sessions; only copies run there). Owns a pull
// stream and events in the session context, and a stream, buffers and
// events in the relay context.
class CopyRelay {
public:
  CopyRelay(const CudaDriver &drv, CUcontext session, CUcontext relay);
  ~CopyRelay();
  CopyRelay(const CopyRelay &) = delete;
  CopyRelay &operator=(const CopyRelay &) = delete;

  // Makes the streams, events and relay buffers and lets the session's
  // device read the relay device's memory; on failure the relay must not
  // be used and *why says what failed. Leaves the session context current.
  bool setUp(std::string *why);
  // Whether splitting a copy of `size` bytes is worth its extra commands.
  static bool worthRelaying(uint64_t size);
  // Enqueues dst <- src, `src` pinned and portable, on `stream` of the
  // session context (current): the first half directly, the rest through
  // the relay. Both halves start after the work before them on `stream`,
  // and work after them on `stream` starts after both: stream order as for
  // one cuMemcpyHtoDAsync.
  CUresult copy(CUdeviceptr dst, const uint8_t *src, uint64_t size,
                CUstream stream);

private:
  static constexpr int kBuffers = 4;
  // Chunks of a relayed half, each staged in one relay buffer: small enough
  // that staging one chunk overlaps pulling the one before it.
  static constexpr uint64_t kChunkBytes = 8 << 20;

  CUresult relayChunk(int buffer, CUdeviceptr dst, const uint8_t *src,
                      uint64_t n);

  const CudaDriver &drv_;
  CUcontext session_, relay_;
  // Session context: the stream that pulls staged chunks into place, the
  // fork and join of the relayed half, and per buffer the pull that last
  // read it (the next staging into it waits for that).
  CUstream pull_ = nullptr;
  CUevent forked_ = nullptr, joined_ = nullptr;
  CUevent pulled_[kBuffers] = {};
  bool used_[kBuffers] = {};
  // Relay context: the stream that stages chunks, the buffers, and per
  // buffer the staging its pull waits for.
  CUstream stage_ = nullptr;
  CUdeviceptr buffers_[kBuffers] = {};
  CUevent staged_[kBuffers] = {};
  int next_ = 0;
};

} // namespace rc::server

#endif
