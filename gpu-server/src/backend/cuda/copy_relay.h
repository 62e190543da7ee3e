// Multipath host-to-device copies (MMA's idea;
// docs/server-internals/devices.md, "Multipath copies"): a large copy from
// pinned host memory to a session's GPU sends parts of its bytes over peer
// GPUs' own PCIe links into relay buffers there, from which the session's GPU
// pulls them peer to peer (NVLink), while one part comes over its own link. On
// two H200s joined by NVLink the two paths together carried 1.8x one path
// (bench/bulk.sh).
#ifndef RC_SERVER_COPY_RELAY_H
#define RC_SERVER_COPY_RELAY_H

#include "backend/cuda/cuda_driver.h"

#include <cstdint>
#include <string>

namespace rc::server {

// The relay of one session context through a context of the backend on
// one peer device (shared by sessions; only copies run there). Owns a pull
// stream and events in the session context, and a stream, buffers and
// events in the relay context. A relayed copy is three steps on the copy's
// stream, in this order for every relay of the copy: fork, send, join.
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

  // The session context is current for each step. fork: what the relay
  // sends starts after the work before it on `stream`, which may still
  // write the source (a read-back into it) or the destination; call it
  // before anything of the copy is enqueued on `stream`.
  CUresult fork(CUstream stream);
  // dst <- src, `src` pinned and portable, through the relay device.
  CUresult send(CUdeviceptr dst, const uint8_t *src, uint64_t size);
  // Work after the copy on `stream` waits for what this relay sent.
  CUresult join(CUstream stream);

private:
  static constexpr int kBuffers = 4;
  // Chunks of a relayed part, each staged in one relay buffer: small
  // enough that staging one chunk overlaps pulling the one before it.
  static constexpr uint64_t kChunkBytes = 8 << 20;

  CUresult relayChunk(int buffer, CUdeviceptr dst, const uint8_t *src,
                      uint64_t n);

  const CudaDriver &drv_;
  CUcontext session_, relay_;
  // Session context: the stream that pulls staged chunks into place, the
  // fork and join of the relayed part, and per buffer the pull that last
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
