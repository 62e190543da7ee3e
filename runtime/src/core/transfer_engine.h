// The transfer engine (transfer_engine.cpp): how the bytes of a copy
// between host and device travel once the copy is checked and its stream
// known. Uploads go from pinned pages the server shares, named by their
// chunks' hashes for the server's content cache, through the session's
// upload ring (RMA, or stored into the ring mapped here), or inline in the
// batch; read-backs through a staging block the server shares, by RMA
// into the destination, or in the reply
// (docs/transport-internals/memory.md). Which one is this class's choice.
//
// Locking: everything here is guarded by the runtime's lock (runtime.h,
// "Locking"): every method but cacheControl expects it held. A transfer
// sends batches and waits for replies with it held, as any copy did.
#ifndef RC_RT_TRANSFER_ENGINE_H
#define RC_RT_TRANSFER_ENGINE_H

#include "core/worker_pool.h"
#include "rc/content_hash.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rc::wire {
struct HelloReply;
struct RemoteMemory;
} // namespace rc::wire

namespace rc::rt {

class Runtime;

class TransferEngine {
public:
  // `bulkThreads`: Options::bulkThreads.
  TransferEngine(Runtime &rt, unsigned bulkThreads)
      : rt_(rt), bulk_(bulkThreads) {}
  TransferEngine(const TransferEngine &) = delete;
  TransferEngine &operator=(const TransferEngine &) = delete;

  // What the server's content cache holds in this client's namespace, as
  // rc-server's JSON (docs/server-internals/content-cache.md, "Content
  // cache"); with `evict`, drops the chunks named (32-digit hashes; none:
  // all of them) first. Takes the runtime's lock.
  cudaError_t cacheControl(bool evict, const std::vector<std::string> &hashes,
                           std::string *json);

  // ---- with the runtime's lock held -------------------------------------
  // At Hello: the upload ring and content cache the server offers; what an
  // earlier session had (staging block, cache, cold-upload run) is dropped.
  void startSessionLocked(const wire::HelloReply &reply);
  // `count` bytes of host memory to device address `dst`, in stream `sid`'s
  // order. The caller may reuse `src` when this returns; without `async`
  // it returns once the stream has passed the copy, with earlier work's
  // errors.
  cudaError_t uploadLocked(void *dst, const void *src, size_t count,
                           uint64_t sid, bool async, const char *call);
  // `count` bytes of device address `src` into host memory `dst`: in `dst`
  // now without `async`, at the latest at the next synchronization with it.
  cudaError_t readBackLocked(void *dst, const void *src, size_t count,
                             uint64_t sid, bool async, const char *call);
  // The bytes uploaded by RMA since the last call: they crossed the link
  // beside the batch being sent (link emulation counts them).
  uint64_t takeBatchRmaBytesLocked() {
    uint64_t n = batchRmaBytes_;
    batchRmaBytes_ = 0;
    return n;
  }
  // A reply's ring_released: how far the server's copies out of the ring
  // have come.
  void ringReleasedLocked(uint64_t released) {
    if (released > ring_.released)
      ring_.released = released;
  }

private:
  Runtime &rt_;

  // An upload from pinned pages the server shares.
  cudaError_t uploadSharedLocked(void *dst, uint64_t region, uint64_t offset,
                                 size_t count, uint64_t sid, bool async,
                                 const char *call);
  // Whether an upload of n bytes is large enough for the upload ring (the
  // session has one, RMA uploads are on).
  bool ringUploadLocked(size_t n) const;
  // One host-to-device piece through the upload ring: written there by RMA
  // and its MemcpyH2DRing appended and sent; false
  // (nothing appended) when the ring has no room now or the write failed,
  // and the piece goes inline.
  bool uploadThroughRingLocked(uint64_t dst, const uint8_t *src, size_t n,
                               uint64_t stream, const char *call);
  // The ring can take bytes up to `end` (asking the server how far its
  // copies are when it looks full).
  bool ringSpaceLocked(uint64_t end);

  // The session's upload ring (HelloReply.upload_ring): pieces are placed
  // one after another, never wrapping; `written` and `released` are running
  // byte counts (the server reports `released` in every reply). A piece
  // goes by RMA to addr/key, or, with a server on this machine, is stored
  // into `mapped`, the ring's shared file mapped here.
  struct UploadRing {
    uint64_t addr = 0, key = 0, size = 0; // size 0: no ring
    uint64_t written = 0, released = 0;
    std::shared_ptr<uint8_t> mapped; // unmapped with the last copy
  } ring_;
  // Takes the ring the server granted (mapping its file if it has one);
  // without one that works, large uploads travel inline
  // (runtime_host_share.cpp).
  void useUploadRingLocked(const wire::RemoteMemory &ring);
  // The server's content cache (HelloReply.content_cache): chunkBytes 0
  // means none, or RC_CACHE=0. `uploads`: large uploads are named by hash
  // (RC_CACHE and the link).
  struct CacheOffer {
    uint64_t chunkBytes = 0, minUpload = 0;
    bool uploads = false;
  } cacheOffer_;
  bool cachedUploadLocked(size_t count) const {
    return cacheOffer_.uploads && count >= cacheOffer_.minUpload;
  }
  // An upload named by its chunks' hashes; the chunks the server does not
  // hold go as usual, each followed by its CacheInsert.
  cudaError_t uploadCachedLocked(uint64_t dst, const uint8_t *src, size_t count,
                                 uint64_t stream, const char *call);
  // Chunk i of an upload of `count` bytes: its bytes, then its CacheInsert
  // (waiting for its hash on `hashing` first, when one is given). Returns
  // the chunk's size.
  uint64_t sendChunkToKeepLocked(uint64_t dst, const uint8_t *src, size_t count,
                                 size_t i,
                                 const std::vector<ContentHash> &hashes,
                                 WorkerPool::Job *hashing, uint64_t stream,
                                 const char *call);
  // Asked uploads in a row whose every chunk the cache missed (a cold
  // cache: a model's first load). From kColdUploads on, uploads go unasked
  // but every kProbeEvery-th, which asks again and ends the run on a hit.
  static constexpr uint64_t kColdUploads = 2, kProbeEvery = 8;
  uint64_t coldUploads_ = 0, unaskedInRow_ = 0;
  // Device-to-host copies of at least kStagedReadbackMin into memory not
  // shared with a server on this machine go through a staging block of
  // kStagingBytes that is shared: the GPU writes it at DMA speed and the
  // bulk threads copy out of it, where the server wrote the application's
  // pages one process-to-process copy at a time.
  static constexpr size_t kStagedReadbackMin = 1 << 20;
  static constexpr size_t kStagingBytes = 32 << 20;
  struct ReadbackStaging {
    uint64_t region = 0;
    std::shared_ptr<uint8_t> mapped;
    bool refused = false; // the server would not share one: not asked again
  } staging_;
  bool stagedReadbackLocked(const uint8_t *out, size_t count);
  cudaError_t readBackStagedLocked(uint8_t *out, uint64_t src, size_t count,
                                   uint64_t stream, const char *call);
  // Sends `count` bytes for dst: through the upload ring in pieces, or
  // inline in the batch.
  void uploadBytesLocked(uint64_t dst, const uint8_t *src, size_t count,
                         uint64_t stream, const char *call);
  // Pieces placed in the ring a few at a time: into a ring mapped here
  // (shm) copied by the bulk threads, each sent as soon as it is in; into
  // one across tcp lanes written together, striped over the lanes, and
  // then sent. Returns the bytes placed (fewer when the ring stays full).
  size_t uploadPiecesToRingLocked(uint64_t dst, const uint8_t *src,
                                  const std::vector<size_t> &pieces,
                                  uint64_t stream, const char *call);
  // Where a piece of n bytes goes in the ring (it never wraps), once the
  // ring has room for it; false when it stays full.
  bool placeInRingLocked(size_t n, uint64_t *offset);
  // Appends a piece's MemcpyH2DRing and sends it;
  // `end` is ring_.written just after the piece was placed.
  void announceRingPieceLocked(uint64_t dst, uint64_t offset, size_t n,
                               uint64_t end, uint64_t stream, const char *call);
  // Threads, the caller's included, that hash large uploads' chunks and
  // copy them into a shm upload ring or out of the staging block.
  WorkerPool bulk_;
  uint64_t batchRmaBytes_ = 0; // uploaded by RMA for the batch being built
};

} // namespace rc::rt

#endif
