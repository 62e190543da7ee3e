// The transfer engine (transfer_engine.h): the path each host-device copy's
// bytes take, and the upload ring, content cache and staging block it
// keeps for them.
#include "core/transfer_engine.h"

#include "core/runtime.h"
#include "rc/content_hash.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>

namespace rc::rt {

namespace {
uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }
} // namespace

// Read-backs written by RMA over tcp lanes go in chunks of this size.
constexpr size_t kLaneReadbackChunk = size_t(32) << 20;

// Uploads of at least this many bytes from shared pinned pages are read
// there by the server's DMA. Smaller ones (llama.cpp's per-token inputs)
// keep travelling in the batch: their bytes are copied at the call, so the
// syncs after them can still be elided.
constexpr size_t kSharedUploadMin = size_t(1) << 20;

// Pinned pages the server shares (shm, docs/transport.md): its DMA reads
// them in stream order, as a local GPU's does, and no byte travels. As in
// CUDA, an asynchronous copy reads them later, so the application leaves
// them alone until the stream has passed it; a synchronous one returns once
// the server's stream has.
cudaError_t TransferEngine::uploadSharedLocked(void *dst, uint64_t region,
                                               uint64_t offset, size_t count,
                                               uint64_t sid, bool async,
                                               const char *call) {
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  rt_.appendLocked(
      wire::Command::MemcpyH2D,
      wire::CreateMemcpyH2D(fbb, addrOf(dst), 0, sid, region, offset, count)
          .Union(),
      {call, 0});
  rt_.stats_.bytesUpShared += count;
  // The server reads host memory after this returns: a later sync must
  // reach it, and the batch must not wait long.
  rt_.workSinceSync_ = true;
  rt_.armFlusherLocked();
  if (async) {
    rt_.afterAppendLocked();
    return cudaSuccess;
  }
  rt_.appendLocked(wire::Command::StreamSynchronize,
                   wire::CreateStreamSynchronize(fbb, sid).Union(), {call, 0});
  return rt_.roundTripLocked({}, /*sync=*/true);
}

void TransferEngine::startSessionLocked(const wire::HelloReply &reply) {
  if (const wire::RemoteMemory *ring = reply.upload_ring())
    useUploadRingLocked(*ring);
  staging_ = {}; // a block of an earlier session is no longer shared
  cacheOffer_ = {};
  coldUploads_ = unaskedInRow_ = 0; // another server, another cache
  const wire::ContentCacheOffer *cache = reply.content_cache();
  using Uploads = Options::CacheUploads;
  const Options &opts = rt_.opts_;
  if (cache && opts.cacheUploads != Uploads::Never && cache->chunk_bytes())
    cacheOffer_ = {cache->chunk_bytes(), cache->min_upload(),
                   opts.cacheUploads == Uploads::Always ||
                       !rt_.conn_->sameHost()};
}

cudaError_t TransferEngine::uploadLocked(void *dst, const void *src,
                                         size_t count, uint64_t sid, bool async,
                                         const char *call) {
  uint64_t region = 0, regionOffset = 0;
  if (count >= kSharedUploadMin &&
      rt_.hostMemory_.sharedRange(src, count, &region, &regionOffset))
    return uploadSharedLocked(dst, region, regionOffset, count, sid, async,
                              call);
  // Data is copied into the batch (or written into the upload ring) now,
  // so the caller may reuse `src`.
  const auto *bytes = static_cast<const uint8_t *>(src);
  if (cachedUploadLocked(count)) {
    if (cudaError_t err =
            uploadCachedLocked(addrOf(dst), bytes, count, sid, call))
      return err;
  } else {
    uploadBytesLocked(addrOf(dst), bytes, count, sid, call);
  }
  if (async)
    return cudaSuccess;
  // Synchronous cudaMemcpy reports errors of earlier work: round trip.
  return rt_.roundTripLocked({}, /*sync=*/true);
}

// One reply-wanted batch per chunk. The payload lands in `dst` when the
// reply is read: now for cudaMemcpy, at the latest at the next
// synchronization for cudaMemcpyAsync. Large chunks ask the server to write
// `dst` directly (RMA) before it replies: no reply payload, no copy out of
// it here.
cudaError_t TransferEngine::readBackLocked(void *dst, const void *src,
                                           size_t count, uint64_t sid,
                                           bool async, const char *call) {
  auto *out = static_cast<uint8_t *>(dst);
  if (stagedReadbackLocked(out, count)) {
    if (cudaError_t err =
            readBackStagedLocked(out, addrOf(src), count, sid, call))
      return err;
    return rt_.takePendingErrorLocked();
  }
  // Over tcp lanes an RMA read-back's reply carries none of its bytes, so
  // its chunk may exceed a reply's: rc-server reads it back in 8 MiB pieces
  // (1 MiB per lane), the GPU copying one while the lanes send the other.
  const size_t rmaChunk =
      rt_.conn_->lanes() > 0
          ? std::max(rt_.opts_.chunkBytes, kLaneReadbackChunk)
          : rt_.opts_.chunkBytes;
  for (size_t off = 0, n = 0; off < count; off += n) {
    n = std::min(rmaChunk, count - off);
    transport::RemoteRegion region;
    uint64_t shared = 0, sharedOffset = 0;
    bool direct =
        rt_.hostMemory_.sharedRange(out + off, n, &shared, &sharedOffset);
    bool rma = !direct && rt_.opts_.rmaReadbackMin &&
               n >= rt_.opts_.rmaReadbackMin &&
               rt_.conn_->exposeForWrite(out + off, n, &region);
    if (!rma && !direct)
      n = std::min(n, rt_.opts_.chunkBytes); // the bytes come in the reply
    Runtime::Sink sink;
    sink.index = rt_.appendLocked(
        wire::Command::MemcpyD2H,
        wire::CreateMemcpyD2H(rt_.batch_.fbb(), addrOf(src) + off, n, sid, rma,
                              region.addr, region.key, shared, sharedOffset)
            .Union(),
        {call, 0});
    sink.payload = out + off;
    sink.payloadSize = n;
    sink.rma = rma || direct;
    sink.shared = direct;
    sink.exposure = region;
    if (cudaError_t err = rt_.sendBatchLocked(true, {sink}, nullptr))
      return err;
  }
  rt_.readbackIsLast_ = true;
  rt_.readbackStream_ = sid;
  if (async)
    return cudaSuccess;
  rt_.countRoundTripLocked(call);
  if (cudaError_t err = rt_.waitSeqLocked(0, /*all=*/true))
    return err;
  return rt_.takePendingErrorLocked();
}

bool TransferEngine::stagedReadbackLocked(const uint8_t *out, size_t count) {
  uint64_t region, offset;
  if (count < kStagedReadbackMin || !rt_.conn_->sameHost() ||
      rt_.hostMemory_.sharedRange(out, 1, &region, &offset) ||
      rt_.hostMemory_.sharedRange(out + count - 1, 1, &region, &offset))
    return false;
  if (!staging_.mapped && !staging_.refused) {
    // Counted as the session's pinned memory, like cudaMallocHost; a server
    // that refuses leaves read-backs as they were.
    uint64_t shared = 0;
    void *p = rt_.shareHostLocked(kStagingBytes, &shared);
    staging_.refused = !p;
    if (p) {
      staging_.region = shared;
      staging_.mapped.reset(static_cast<uint8_t *>(p),
                            [](uint8_t *q) { munmap(q, kStagingBytes); });
    }
  }
  return staging_.mapped != nullptr;
}

// Read-backs of a few chunks stay in flight: the GPU writes chunk k into
// its slot while the bulk threads copy chunk k - 1 out of another. Pageable
// memory is the caller's again when this returns, as with cudart.
cudaError_t TransferEngine::readBackStagedLocked(uint8_t *out, uint64_t src,
                                                 size_t count, uint64_t sid,
                                                 const char *call) {
  const size_t slot = rt_.opts_.chunkBytes, slots = kStagingBytes / slot;
  const size_t chunks = (count - 1) / slot + 1;
  std::vector<uint64_t> seqs(chunks);
  auto copyOut = [&](size_t k) -> cudaError_t {
    if (cudaError_t err = rt_.waitSeqLocked(seqs[k], /*all=*/false))
      return err;
    const uint8_t *from = staging_.mapped.get() + (k % slots) * slot;
    size_t n = std::min(slot, count - k * slot);
    constexpr size_t kPart = 1 << 20;
    bulk_.run((n - 1) / kPart + 1, [&](size_t i) {
      size_t at = i * kPart;
      std::memcpy(out + k * slot + at, from + at, std::min(kPart, n - at));
    });
    return cudaSuccess;
  };
  rt_.countRoundTripLocked(call);
  for (size_t k = 0; k < chunks; ++k) {
    if (k >= slots)
      if (cudaError_t err = copyOut(k - slots)) // its slot is needed again
        return err;
    size_t n = std::min(slot, count - k * slot);
    Runtime::Sink sink;
    sink.index = rt_.appendLocked(
        wire::Command::MemcpyD2H,
        wire::CreateMemcpyD2H(rt_.batch_.fbb(), src + k * slot, n, sid, false,
                              0, 0, staging_.region, (k % slots) * slot)
            .Union(),
        {call, 0});
    sink.payloadSize = n;
    sink.rma = sink.shared = true; // the GPU writes the slot itself
    if (cudaError_t err = rt_.sendBatchLocked(true, {sink}, &seqs[k]))
      return err;
  }
  for (size_t k = chunks > slots ? chunks - slots : 0; k < chunks; ++k)
    if (cudaError_t err = copyOut(k))
      return err;
  return cudaSuccess;
}

// Uploads through the ring go in pieces of this size, each sent in a batch
// of its own as soon as it is written: the server copies one piece to the
// device while the next crosses the link, and the GPU waits for the last
// piece's copy only, not the whole upload's (a prompt's 8 MiB of
// embeddings). Measured against whole chunks waiting in the batch, it did
// not separate from noise; kept since it never adds a transfer
// (docs/design/knobs.md).
constexpr size_t kRingPieceBytes = 1 << 20;

void TransferEngine::uploadBytesLocked(uint64_t dst, const uint8_t *src,
                                       size_t count, uint64_t sid,
                                       const char *call) {
  bool pieces = ringUploadLocked(count);
  size_t step = pieces ? std::min(kRingPieceBytes, rt_.opts_.chunkBytes)
                       : rt_.opts_.chunkBytes;
  std::vector<size_t> sizes;
  for (size_t off = 0, n = 0; off < count; off += n) {
    n = std::min(step, count - off);
    // A tail too small for the ring rides with the last piece, as long as
    // that stays a chunk (the piece goes inline when the ring is full).
    if (pieces && count - off - n < rt_.opts_.rmaUploadMin &&
        count - off <= rt_.opts_.chunkBytes)
      n = count - off;
    sizes.push_back(n);
  }
  size_t off = 0, first = 0;
  if (pieces && (ring_.mapped || rt_.conn_->lanes() > 0)) {
    off = uploadPiecesToRingLocked(dst, src, sizes, sid, call);
    for (size_t placed = 0; placed < off; ++first)
      placed += sizes[first];
  }
  for (size_t i = first; i < sizes.size(); off += sizes[i++]) {
    size_t n = sizes[i];
    if (uploadThroughRingLocked(dst + off, src + off, n, sid, call))
      continue;
    auto data = rt_.batch_.fbb().CreateVector(src + off, n);
    rt_.appendLocked(
        wire::Command::MemcpyH2D,
        wire::CreateMemcpyH2D(rt_.batch_.fbb(), dst + off, data, sid).Union(),
        {call, 0});
    rt_.stats_.bytesUpH2dData += n;
    rt_.afterAppendLocked();
  }
}

size_t
TransferEngine::uploadPiecesToRingLocked(uint64_t dst, const uint8_t *src,
                                         const std::vector<size_t> &sizes,
                                         uint64_t sid, const char *call) {
  // A group is a few pieces placed at once, small beside the ring, so that
  // its room frees as the server copies earlier ones.
  const size_t groupBytes = std::max<uint64_t>(ring_.size / 4, 1);
  size_t off = 0;
  for (size_t i = 0; i < sizes.size();) {
    struct Placed {
      size_t from, n;
      uint64_t offset, end; // in the ring; `end` as placeInRingLocked left it
    };
    std::vector<Placed> group;
    const uint64_t writtenBefore = ring_.written;
    for (size_t bytes = 0; i < sizes.size() && sizes[i] <= ring_.size &&
                           (group.empty() || bytes + sizes[i] <= groupBytes);
         ++i) {
      Placed p{off, sizes[i], 0, 0};
      if (!placeInRingLocked(p.n, &p.offset))
        break;
      p.end = ring_.written;
      group.push_back(p);
      bytes += p.n;
      off += p.n;
    }
    if (group.empty())
      return off; // the ring stays full: the rest goes another way
    if (!ring_.mapped) {
      std::vector<transport::RemoteWrite> writes;
      for (const Placed &p : group)
        writes.push_back(
            {src + p.from, p.n, {ring_.addr + p.offset, ring_.key}});
      rt_.link_.startingOut();
      if (rt_.conn_->writeRemoteAll(writes) != transport::Status::Ok) {
        ring_.written = writtenBefore; // nothing of it is sure to be there
        return group.front().from;
      }
      for (const Placed &p : group)
        announceRingPieceLocked(dst + p.from, p.offset, p.n, p.end, sid, call);
      continue;
    }
    uint8_t *ring = ring_.mapped.get();
    std::shared_ptr<WorkerPool::Job> copies =
        bulk_.start(group.size(), [&](size_t k) {
          std::memcpy(ring + group[k].offset, src + group[k].from, group[k].n);
        });
    for (size_t k = 0; k < group.size(); ++k) {
      copies->wait(k); // each piece leaves as soon as it is in
      announceRingPieceLocked(dst + group[k].from, group[k].offset, group[k].n,
                              group[k].end, sid, call);
    }
  }
  return off;
}

// One round trip asks which chunks the server holds (it copies those at
// once, in stream order); the others go as usual, and the server keeps
// each after checking its hash. The wait costs one round trip per large
// upload, against sending chunks of megabytes; while the cache misses
// everything (a cold cache), uploads skip it.
cudaError_t TransferEngine::uploadCachedLocked(uint64_t dst, const uint8_t *src,
                                               size_t count, uint64_t sid,
                                               const char *call) {
  const uint64_t chunkBytes = cacheOffer_.chunkBytes;
  std::vector<ContentHash> hashes(size_t((count - 1) / chunkBytes + 1));
  std::shared_ptr<WorkerPool::Job> hashing =
      bulk_.start(hashes.size(), [&](size_t i) {
        uint64_t off = uint64_t(i) * chunkBytes;
        hashes[i] = hashContent(src + off, std::min(chunkBytes, count - off));
      });
  if (coldUploads_ >= kColdUploads && ++unaskedInRow_ % kProbeEvery != 0) {
    // Unasked: each chunk's bytes, then its CacheInsert once its hash is
    // done, the bulk threads hashing while the bytes go.
    for (size_t i = 0; i < hashes.size(); ++i)
      sendChunkToKeepLocked(dst, src, count, i, hashes, hashing.get(), sid,
                            call);
    ++rt_.stats_.cacheUploadsUnasked;
    return cudaSuccess;
  }
  hashing->waitAll();
  std::vector<wire::ChunkHash> named;
  named.reserve(hashes.size());
  for (const ContentHash &h : hashes)
    named.push_back(h.wire());
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  auto chunks = fbb.CreateVectorOfStructs(named);
  Runtime::Sink sink;
  sink.index = rt_.appendLocked(
      wire::Command::MemcpyH2DCached,
      wire::CreateMemcpyH2DCached(fbb, dst, sid, count, chunks).Union(),
      {call, 0});
  std::vector<uint8_t> missing(hashes.size() * 4);
  size_t got = 0;
  bool answered = false;
  sink.payload = missing.data();
  sink.payloadSize = missing.size();
  sink.payloadGot = &got;
  sink.filled = &answered;
  if (cudaError_t err = rt_.roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (!answered) { // no list of what is missing: send everything
    uploadBytesLocked(dst, src, count, sid, call);
    return cudaSuccess;
  }
  uint64_t sent = 0;
  for (size_t i = 0; i + 4 <= got; i += 4) {
    uint32_t chunk = uint32_t(missing[i]) | uint32_t(missing[i + 1]) << 8 |
                     uint32_t(missing[i + 2]) << 16 |
                     uint32_t(missing[i + 3]) << 24;
    if (chunk >= hashes.size())
      continue; // not a chunk of this upload: a server's mistake, ignored
    sent += sendChunkToKeepLocked(dst, src, count, chunk, hashes, nullptr, sid,
                                  call);
  }
  rt_.stats_.bytesUpCached += count - sent;
  if (sent == count) {
    ++coldUploads_;
  } else {
    coldUploads_ = 0;
    unaskedInRow_ = 0;
  }
  return cudaSuccess;
}

uint64_t TransferEngine::sendChunkToKeepLocked(
    uint64_t dst, const uint8_t *src, size_t count, size_t i,
    const std::vector<ContentHash> &hashes, WorkerPool::Job *hashing,
    uint64_t sid, const char *call) {
  const uint64_t chunkBytes = cacheOffer_.chunkBytes;
  uint64_t offset = uint64_t(i) * chunkBytes;
  uint64_t n = std::min<uint64_t>(chunkBytes, count - offset);
  uploadBytesLocked(dst + offset, src + offset, n, sid, call);
  if (hashing)
    hashing->wait(i);
  wire::ChunkHash hash = hashes[i].wire();
  rt_.appendLocked(
      wire::Command::CacheInsert,
      wire::CreateCacheInsert(rt_.batch_.fbb(), dst + offset, sid, n, &hash)
          .Union(),
      {call, 0});
  rt_.afterAppendLocked();
  ++rt_.stats_.cacheChunksMissed;
  return n;
}

cudaError_t TransferEngine::cacheControl(bool evict,
                                         const std::vector<std::string> &hashes,
                                         std::string *json) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  if (!cacheOffer_.chunkBytes) {
    std::fprintf(stderr,
                 "remote-clang: %s keeps no content cache (rc-server "
                 "--cache SIZE), or RC_CACHE=0 is set\n",
                 rt_.serverName_.c_str());
    return cudaErrorNotSupported;
  }
  std::vector<wire::ChunkHash> named;
  for (const std::string &text : hashes) {
    ContentHash h;
    if (!ContentHash::parse(text, &h))
      return cudaErrorInvalidValue;
    named.push_back(h.wire());
  }
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  auto list = fbb.CreateVectorOfStructs(named);
  Runtime::Sink sink;
  sink.index = rt_.appendLocked(
      wire::Command::CacheControl,
      wire::CreateCacheControl(fbb, evict, list).Union(), {"rc-cache", 0});
  std::vector<char> reply(16 << 20);
  size_t got = 0;
  sink.payload = reply.data();
  sink.payloadSize = reply.size();
  sink.payloadGot = &got;
  if (cudaError_t err = rt_.roundTripLocked({sink}, /*sync=*/false))
    return err;
  json->assign(reply.data(), got);
  return cudaSuccess;
}

bool TransferEngine::ringUploadLocked(size_t n) const {
  return ring_.size && rt_.opts_.rmaUploadMin && n >= rt_.opts_.rmaUploadMin;
}

// Whether the ring can hold everything up to `end`. Replies say how far
// the server's copies out of the ring have come, and a large upload sends
// its pieces without asking for one: when the ring is full, ask (a few
// round trips, while the GPU drains it at tens of GB/s) rather than send
// the rest inline, which copies every byte twice more.
bool TransferEngine::ringSpaceLocked(uint64_t end) {
  constexpr int kAsks = 64;
  for (int i = 0; end - ring_.released > ring_.size; ++i)
    if (i == kAsks || rt_.roundTripLocked({}, /*sync=*/false) != cudaSuccess)
      return false;
  return true;
}

bool TransferEngine::placeInRingLocked(size_t n, uint64_t *offset) {
  // A piece never wraps: one that does not fit before the end of the ring
  // starts at its beginning, and the tail stays unused this round.
  uint64_t pos = ring_.written % ring_.size;
  uint64_t skip = pos + n > ring_.size ? ring_.size - pos : 0;
  uint64_t end = ring_.written + skip + n;
  if (!ringSpaceLocked(end))
    return false; // the server is still copying from that space
  *offset = skip ? 0 : pos;
  ring_.written = end; // the server reports `released` up to a piece's end
  return true;
}

bool TransferEngine::uploadThroughRingLocked(uint64_t dst, const uint8_t *src,
                                             size_t n, uint64_t stream,
                                             const char *call) {
  if (!ringUploadLocked(n) || n > ring_.size)
    return false;
  uint64_t written = ring_.written, offset = 0;
  if (!placeInRingLocked(n, &offset))
    return false;
  rt_.link_.startingOut();
  if (ring_.mapped) {
    std::memcpy(ring_.mapped.get() + offset, src, n);
  } else if (rt_.conn_->writeRemote(src, n, {ring_.addr + offset, ring_.key}) !=
             transport::Status::Ok) {
    ring_.written = written; // nothing went there
    return false;
  }
  announceRingPieceLocked(dst, offset, n, ring_.written, stream, call);
  return true;
}

void TransferEngine::announceRingPieceLocked(uint64_t dst, uint64_t offset,
                                             size_t n, uint64_t end,
                                             uint64_t stream,
                                             const char *call) {
  rt_.appendLocked(
      wire::Command::MemcpyH2DRing,
      wire::CreateMemcpyH2DRing(rt_.batch_.fbb(), dst, stream, offset, n, end)
          .Union(),
      {call, 0});
  rt_.stats_.bytesUpRma += n;
  batchRmaBytes_ += n;
  rt_.sendBatchLocked(false, {}, nullptr); // its copy can start now
}

} // namespace rc::rt
