// Memory: allocation table, copies in every direction (chunked; H2D data
// inline in the batch, D2H payloads in replies), memset, symbols.
#include "core/runtime.h"
#include "rc/content_hash.h"

#include "core/unsupported.h"
#include "manifests/startup_registry.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace rc::rt {

namespace {
uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }
} // namespace

cudaError_t Runtime::malloc(void **ptr, size_t size) {
  if (!ptr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  return mallocLocked(ptr, size, "cudaMalloc");
}

cudaError_t Runtime::mallocLocked(void **ptr, size_t size, const char *call) {
  *ptr = nullptr;
  if (size == 0)
    return cudaSuccess; // cudart returns a null pointer, successfully
  // More than the device has never succeeds: fail as cudart does, at once,
  // instead of asking the server to try.
  if (size > props_[size_t(threadDevice())].totalGlobalMem)
    return cudaErrorMemoryAllocation;
  ensureDeviceLocked();
  uint64_t addr = 0;
  bool filled = false;
  Sink sink;
  sink.index =
      appendLocked(wire::Command::Malloc,
                   wire::CreateMalloc(batch_.fbb(), size).Union(), {call, 0});
  sink.addr = &addr;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (!filled || !addr)
    return cudaErrorMemoryAllocation;
  allocs_[addr] = size;
  allocDevice_[addr] = threadDevice();
  *ptr = reinterpret_cast<void *>(uintptr_t(addr));
  return cudaSuccess;
}

cudaError_t Runtime::free(void *ptr) {
  if (!ptr)
    return cudaSuccess;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = unavailableLocked())
    return err;
  if (freeGraphMemoryLocked(ptr))
    return cudaSuccess;
  void *base = nullptr;
  return freeLocked(freeManagedLocked(ptr, &base) ? base : ptr);
}

cudaError_t Runtime::freeLocked(void *ptr) {
  if (!allocs_.erase(addrOf(ptr)))
    return cudaErrorInvalidValue; // not the start of a cudaMalloc block
  allocDevice_.erase(addrOf(ptr));
  ensureDeviceLocked();
  // Batched: the server frees in order, after the work that uses it.
  appendLocked(wire::Command::Free,
               wire::CreateFree(batch_.fbb(), addrOf(ptr)).Union(),
               {"cudaFree", 0});
  afterAppendLocked();
  return cudaSuccess;
}

// "Pinned" host memory is plain aligned host memory, whose copies go
// through the wire; with a server on the same machine, large blocks are
// memory the server shares instead (runtime_host_share.cpp), which it reads
// back into directly.
cudaError_t Runtime::mallocHost(void **ptr, size_t size) {
  if (!ptr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t region = 0;
  void *p = shareHostLocked(size, &region);
  if (!p && posix_memalign(&p, 4096, size ? size : 1) != 0)
    return cudaErrorMemoryAllocation;
  hostMemory_.addBlock(p, size, region);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t Runtime::freeHost(void *ptr) {
  if (!ptr)
    return cudaSuccess;
  std::lock_guard<std::mutex> lock(mu_);
  size_t size = 0;
  uint64_t region = 0;
  if (!hostMemory_.removeBlock(ptr, &size, &region))
    return cudaErrorInvalidValue;
  if (!region) {
    std::free(ptr);
  } else {
    munmap(ptr, size);
    // The server keeps its own mapping until it replays this, after every
    // read-back already sent into the block.
    if (unavailableLocked() == cudaSuccess) {
      appendLocked(wire::Command::HostUnshare,
                   wire::CreateHostUnshare(batch_.fbb(), region).Union(),
                   {"cudaFreeHost", 0});
      afterAppendLocked();
    }
  }
  return cudaSuccess;
}

namespace {
bool inRanges(const std::map<uint64_t, size_t> &ranges, uint64_t a) {
  auto it = ranges.upper_bound(a);
  if (it == ranges.begin())
    return false;
  --it;
  return a < it->first + std::max<size_t>(it->second, 1);
}

// Whether [a, a + n) (n > 0) lies inside one of `ranges` (address ->
// size), or with `adjoining`, inside ranges that follow each other without
// a gap: VMM mappings made back to back (ggml grows its pool so) are one.
bool covered(const std::map<uint64_t, size_t> &ranges, uint64_t a, uint64_t n,
             bool adjoining) {
  auto it = ranges.upper_bound(a);
  if (it == ranges.begin())
    return false;
  --it;
  uint64_t end = it->first + it->second; // covered so far
  if (a >= end)
    return false;
  while (end - a < n) {
    auto next = adjoining ? ranges.find(end) : ranges.end();
    if (next == ranges.end() || next->second == 0)
      return false;
    end += next->second;
  }
  return true;
}
} // namespace

// Device addresses are known: they come from cudaMalloc or symbol lookups.
bool Runtime::isDevicePointerLocked(const void *p) const {
  return inRanges(allocs_, addrOf(p)) || inRanges(symbolRanges_, addrOf(p)) ||
         inRanges(vmmMapped_, addrOf(p));
}

cudaError_t Runtime::checkDeviceRangeLocked(const char *call, const char *role,
                                            const void *p, size_t n) const {
  uint64_t a = addrOf(p);
  if (covered(allocs_, a, n, false) || covered(symbolRanges_, a, n, false) ||
      covered(vmmMapped_, a, n, true))
    return cudaSuccess;
  std::fprintf(stderr,
               "remote-clang: %s: %s range 0x%" PRIx64 " + %zu bytes is not "
               "inside one device allocation (cudaErrorInvalidValue)\n",
               call, role, a, n);
  return cudaErrorInvalidValue;
}

cudaError_t Runtime::allocationRange(const void *p, void **base, size_t *size) {
  if (!base || !size)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto *ranges : {&allocs_, &symbolRanges_, &vmmMapped_}) {
    auto it = ranges->upper_bound(addrOf(p));
    if (it == ranges->begin() || !inRanges(*ranges, addrOf(p)))
      continue;
    --it;
    *base = reinterpret_cast<void *>(uintptr_t(it->first));
    *size = it->second;
    return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

cudaError_t Runtime::pointerAttributes(cudaPointerAttributes *attr,
                                       const void *p) {
  if (!attr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  std::memset(attr, 0, sizeof *attr);
  attr->device = threadDevice();
  auto owner = allocDevice_.upper_bound(addrOf(p));
  if (owner != allocDevice_.begin() && inRanges(allocs_, addrOf(p)))
    attr->device = std::prev(owner)->second;
  ManagedMirrors::Range mirror;
  if (managed_.find(p, 0, &mirror)) {
    attr->type = cudaMemoryTypeManaged;
    attr->devicePointer = const_cast<void *>(p);
    attr->hostPointer = const_cast<void *>(p);
    return cudaSuccess;
  }
  if (isDevicePointerLocked(p)) {
    attr->type = cudaMemoryTypeDevice;
    attr->devicePointer = const_cast<void *>(p);
    return cudaSuccess;
  }
  if (hostMemory_.isPinned(p)) {
    attr->type = cudaMemoryTypeHost;
    attr->hostPointer = const_cast<void *>(p);
    return cudaSuccess;
  }
  attr->type = cudaMemoryTypeUnregistered; // like cudart >= 11
  return cudaSuccess;
}

cudaError_t Runtime::memcpy(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream,
                            bool async, bool perThread) {
  std::lock_guard<std::mutex> lock(mu_);
  cudaError_t err =
      memcpyLocked(dst, src, count, kind, stream, async, perThread,
                   async ? "cudaMemcpyAsync" : "cudaMemcpy");
  // A synchronous copy waits for the device: managed memory it wrote is
  // the host's again.
  return async ? err : downloadManagedLocked(err);
}

cudaError_t Runtime::copyDirectionLocked(const void *dst, const void *src,
                                         size_t count, cudaMemcpyKind *kind,
                                         const char *call) const {
  if (*kind == cudaMemcpyDefault) {
    // Resolvable because every device address came from our cudaMalloc.
    bool d = isDevicePointerLocked(dst), s = isDevicePointerLocked(src);
    *kind = d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
              : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  // Managed memory is copied where its current copy is, whatever the kind
  // says (managed_memory.h).
  *kind = managed_.copyKind(dst, src, *kind);
  if (*kind == cudaMemcpyHostToHost)
    return cudaSuccess;
  if (*kind != cudaMemcpyHostToDevice && *kind != cudaMemcpyDeviceToHost &&
      *kind != cudaMemcpyDeviceToDevice)
    return cudaErrorInvalidMemcpyDirection;
  if (*kind != cudaMemcpyHostToDevice)
    if (cudaError_t err = checkDeviceRangeLocked(call, "source", src, count))
      return err;
  if (*kind != cudaMemcpyDeviceToHost)
    if (cudaError_t err =
            checkDeviceRangeLocked(call, "destination", dst, count))
      return err;
  return cudaSuccess;
}

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
cudaError_t Runtime::uploadSharedLocked(void *dst, uint64_t region,
                                        uint64_t offset, size_t count,
                                        uint64_t sid, bool async,
                                        const char *call) {
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  appendLocked(
      wire::Command::MemcpyH2D,
      wire::CreateMemcpyH2D(fbb, addrOf(dst), 0, sid, region, offset, count)
          .Union(),
      {call, 0});
  stats_.bytesUpShared += count;
  // The server reads host memory after this returns: a later sync must
  // reach it, and the batch must not wait long.
  workSinceSync_ = true;
  armFlusherLocked();
  if (async) {
    afterAppendLocked();
    return cudaSuccess;
  }
  appendLocked(wire::Command::StreamSynchronize,
               wire::CreateStreamSynchronize(fbb, sid).Union(), {call, 0});
  return roundTripLocked({}, /*sync=*/true);
}

cudaError_t Runtime::memcpyLocked(void *dst, const void *src, size_t count,
                                  cudaMemcpyKind kind, cudaStream_t stream,
                                  bool async, bool perThread,
                                  const char *call) {
  if (count == 0)
    return cudaSuccess;
  if (!dst || !src)
    return cudaErrorInvalidValue;
  if (cudaError_t err = copyDirectionLocked(dst, src, count, &kind, call))
    return err;
  if (kind == cudaMemcpyHostToHost) {
    std::memmove(dst, src, count);
    return cudaSuccess;
  }
  uint64_t sid;
  if (cudaError_t err = connectedStreamLocked(stream, perThread, &sid))
    return err;
  if (graphs_.capturing(sid)) { // a graph node instead (graph_runtime.cpp)
    bool captured;
    return captureLocked(sid, GraphNode::copy(dst, src, count, kind),
                         &captured);
  }
  ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();

  if (kind == cudaMemcpyDeviceToDevice) {
    // No host-side effect: batched even for cudaMemcpy (cudart does not
    // block the host for D2D either).
    appendLocked(
        wire::Command::MemcpyD2D,
        wire::CreateMemcpyD2D(fbb, addrOf(dst), addrOf(src), count, sid)
            .Union(),
        {call, 0});
    afterAppendLocked();
    return cudaSuccess;
  }

  if (kind == cudaMemcpyHostToDevice) {
    if (!movingManaged_) // the host's copy of managed memory, too
      managed_.writeThrough(dst, src, count);
    uint64_t region = 0, regionOffset = 0;
    if (count >= kSharedUploadMin &&
        hostMemory_.sharedRange(src, count, &region, &regionOffset))
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
    return roundTripLocked({}, /*sync=*/true);
  }

  // Device to host: one reply-wanted batch per chunk. The payload lands in
  // `dst` when the reply is read: now for cudaMemcpy, at the latest at the
  // next synchronization for cudaMemcpyAsync. Large chunks ask the server to
  // write `dst` directly (RMA) before it replies: no reply payload, no copy
  // out of it here.
  auto *out = static_cast<uint8_t *>(dst);
  managed_.prepareHostWrite(dst, count); // into a mirror: it is the newer
  if (stagedReadbackLocked(out, count)) {
    if (cudaError_t err =
            readBackStagedLocked(out, addrOf(src), count, sid, call))
      return err;
    return takePendingErrorLocked();
  }
  // Over tcp lanes an RMA read-back's reply carries none of its bytes, so
  // its chunk may exceed a reply's: rc-server reads it back in 8 MiB pieces
  // (1 MiB per lane), the GPU copying one while the lanes send the other.
  const size_t rmaChunk = conn_->lanes() > 0
                              ? std::max(opts_.chunkBytes, kLaneReadbackChunk)
                              : opts_.chunkBytes;
  for (size_t off = 0, n = 0; off < count; off += n) {
    n = std::min(rmaChunk, count - off);
    transport::RemoteRegion region;
    uint64_t shared = 0, sharedOffset = 0;
    bool direct = hostMemory_.sharedRange(out + off, n, &shared, &sharedOffset);
    bool rma = !direct && opts_.rmaReadbackMin && n >= opts_.rmaReadbackMin &&
               conn_->exposeForWrite(out + off, n, &region);
    if (!rma && !direct)
      n = std::min(n, opts_.chunkBytes); // the bytes come in the reply
    Sink sink;
    sink.index = appendLocked(
        wire::Command::MemcpyD2H,
        wire::CreateMemcpyD2H(batch_.fbb(), addrOf(src) + off, n, sid, rma,
                              region.addr, region.key, shared, sharedOffset)
            .Union(),
        {call, 0});
    sink.payload = out + off;
    sink.payloadSize = n;
    sink.rma = rma || direct;
    sink.shared = direct;
    sink.exposure = region;
    if (cudaError_t err = sendBatchLocked(true, {sink}, nullptr))
      return err;
  }
  readbackIsLast_ = true;
  readbackStream_ = sid;
  if (async)
    return cudaSuccess;
  countRoundTripLocked(call);
  if (cudaError_t err = waitSeqLocked(0, /*all=*/true))
    return err;
  return takePendingErrorLocked();
}

bool Runtime::stagedReadbackLocked(const uint8_t *out, size_t count) {
  uint64_t region, offset;
  if (count < kStagedReadbackMin || !conn_->sameHost() ||
      hostMemory_.sharedRange(out, 1, &region, &offset) ||
      hostMemory_.sharedRange(out + count - 1, 1, &region, &offset))
    return false;
  if (!staging_.mapped && !staging_.refused) {
    // Counted as the session's pinned memory, like cudaMallocHost; a server
    // that refuses leaves read-backs as they were.
    uint64_t shared = 0;
    void *p = shareHostLocked(kStagingBytes, &shared);
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
cudaError_t Runtime::readBackStagedLocked(uint8_t *out, uint64_t src,
                                          size_t count, uint64_t sid,
                                          const char *call) {
  const size_t slot = opts_.chunkBytes, slots = kStagingBytes / slot;
  const size_t chunks = (count - 1) / slot + 1;
  std::vector<uint64_t> seqs(chunks);
  auto copyOut = [&](size_t k) -> cudaError_t {
    if (cudaError_t err = waitSeqLocked(seqs[k], /*all=*/false))
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
  countRoundTripLocked(call);
  for (size_t k = 0; k < chunks; ++k) {
    if (k >= slots)
      if (cudaError_t err = copyOut(k - slots)) // its slot is needed again
        return err;
    size_t n = std::min(slot, count - k * slot);
    Sink sink;
    sink.index = appendLocked(
        wire::Command::MemcpyD2H,
        wire::CreateMemcpyD2H(batch_.fbb(), src + k * slot, n, sid, false, 0, 0,
                              staging_.region, (k % slots) * slot)
            .Union(),
        {call, 0});
    sink.payloadSize = n;
    sink.rma = sink.shared = true; // the GPU writes the slot itself
    if (cudaError_t err = sendBatchLocked(true, {sink}, &seqs[k]))
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

void Runtime::uploadBytesLocked(uint64_t dst, const uint8_t *src, size_t count,
                                uint64_t sid, const char *call) {
  bool pieces = ringUploadLocked(count);
  size_t step =
      pieces ? std::min(kRingPieceBytes, opts_.chunkBytes) : opts_.chunkBytes;
  std::vector<size_t> sizes;
  for (size_t off = 0, n = 0; off < count; off += n) {
    n = std::min(step, count - off);
    // A tail too small for the ring rides with the last piece, as long as
    // that stays a chunk (the piece goes inline when the ring is full).
    if (pieces && count - off - n < opts_.rmaUploadMin &&
        count - off <= opts_.chunkBytes)
      n = count - off;
    sizes.push_back(n);
  }
  size_t off = 0, first = 0;
  if (pieces && (ring_.mapped || conn_->lanes() > 0)) {
    off = uploadPiecesToRingLocked(dst, src, sizes, sid, call);
    for (size_t placed = 0; placed < off; ++first)
      placed += sizes[first];
  }
  for (size_t i = first; i < sizes.size(); off += sizes[i++]) {
    size_t n = sizes[i];
    if (uploadThroughRingLocked(dst + off, src + off, n, sid, call))
      continue;
    auto data = batch_.fbb().CreateVector(src + off, n);
    appendLocked(
        wire::Command::MemcpyH2D,
        wire::CreateMemcpyH2D(batch_.fbb(), dst + off, data, sid).Union(),
        {call, 0});
    stats_.bytesUpH2dData += n;
    afterAppendLocked();
  }
}

size_t Runtime::uploadPiecesToRingLocked(uint64_t dst, const uint8_t *src,
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
      link_.startingOut();
      if (conn_->writeRemoteAll(writes) != transport::Status::Ok) {
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
cudaError_t Runtime::uploadCachedLocked(uint64_t dst, const uint8_t *src,
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
    ++stats_.cacheUploadsUnasked;
    return cudaSuccess;
  }
  hashing->waitAll();
  std::vector<wire::ChunkHash> named;
  named.reserve(hashes.size());
  for (const ContentHash &h : hashes)
    named.push_back(h.wire());
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  auto chunks = fbb.CreateVectorOfStructs(named);
  Sink sink;
  sink.index = appendLocked(
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
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
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
  stats_.bytesUpCached += count - sent;
  if (sent == count) {
    ++coldUploads_;
  } else {
    coldUploads_ = 0;
    unaskedInRow_ = 0;
  }
  return cudaSuccess;
}

uint64_t Runtime::sendChunkToKeepLocked(uint64_t dst, const uint8_t *src,
                                        size_t count, size_t i,
                                        const std::vector<ContentHash> &hashes,
                                        WorkerPool::Job *hashing, uint64_t sid,
                                        const char *call) {
  const uint64_t chunkBytes = cacheOffer_.chunkBytes;
  uint64_t offset = uint64_t(i) * chunkBytes;
  uint64_t n = std::min<uint64_t>(chunkBytes, count - offset);
  uploadBytesLocked(dst + offset, src + offset, n, sid, call);
  if (hashing)
    hashing->wait(i);
  wire::ChunkHash hash = hashes[i].wire();
  appendLocked(
      wire::Command::CacheInsert,
      wire::CreateCacheInsert(batch_.fbb(), dst + offset, sid, n, &hash)
          .Union(),
      {call, 0});
  afterAppendLocked();
  ++stats_.cacheChunksMissed;
  return n;
}

cudaError_t Runtime::cacheControl(bool evict,
                                  const std::vector<std::string> &hashes,
                                  std::string *json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  if (!cacheOffer_.chunkBytes) {
    std::fprintf(stderr,
                 "remote-clang: %s keeps no content cache (rc-server "
                 "--cache SIZE), or RC_CACHE=0 is set\n",
                 serverName_.c_str());
    return cudaErrorNotSupported;
  }
  std::vector<wire::ChunkHash> named;
  for (const std::string &text : hashes) {
    ContentHash h;
    if (!ContentHash::parse(text, &h))
      return cudaErrorInvalidValue;
    named.push_back(h.wire());
  }
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  auto list = fbb.CreateVectorOfStructs(named);
  Sink sink;
  sink.index = appendLocked(wire::Command::CacheControl,
                            wire::CreateCacheControl(fbb, evict, list).Union(),
                            {"rc-cache", 0});
  std::vector<char> reply(16 << 20);
  size_t got = 0;
  sink.payload = reply.data();
  sink.payloadSize = reply.size();
  sink.payloadGot = &got;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  json->assign(reply.data(), got);
  return cudaSuccess;
}

bool Runtime::ringUploadLocked(size_t n) const {
  return ring_.size && opts_.rmaUploadMin && n >= opts_.rmaUploadMin;
}

// Whether the ring can hold everything up to `end`. Replies say how far
// the server's copies out of the ring have come, and a large upload sends
// its pieces without asking for one: when the ring is full, ask (a few
// round trips, while the GPU drains it at tens of GB/s) rather than send
// the rest inline, which copies every byte twice more.
bool Runtime::ringSpaceLocked(uint64_t end) {
  constexpr int kAsks = 64;
  for (int i = 0; end - ring_.released > ring_.size; ++i)
    if (i == kAsks || roundTripLocked({}, /*sync=*/false) != cudaSuccess)
      return false;
  return true;
}

bool Runtime::placeInRingLocked(size_t n, uint64_t *offset) {
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

bool Runtime::uploadThroughRingLocked(uint64_t dst, const uint8_t *src,
                                      size_t n, uint64_t stream,
                                      const char *call) {
  if (!ringUploadLocked(n) || n > ring_.size)
    return false;
  uint64_t written = ring_.written, offset = 0;
  if (!placeInRingLocked(n, &offset))
    return false;
  link_.startingOut();
  if (ring_.mapped) {
    std::memcpy(ring_.mapped.get() + offset, src, n);
  } else if (conn_->writeRemote(src, n, {ring_.addr + offset, ring_.key}) !=
             transport::Status::Ok) {
    ring_.written = written; // nothing went there
    return false;
  }
  announceRingPieceLocked(dst, offset, n, ring_.written, stream, call);
  return true;
}

void Runtime::announceRingPieceLocked(uint64_t dst, uint64_t offset, size_t n,
                                      uint64_t end, uint64_t stream,
                                      const char *call) {
  appendLocked(
      wire::Command::MemcpyH2DRing,
      wire::CreateMemcpyH2DRing(batch_.fbb(), dst, stream, offset, n, end)
          .Union(),
      {call, 0});
  stats_.bytesUpRma += n;
  batchRmaBytes_ += n;
  sendBatchLocked(false, {}, nullptr); // its copy can start now
}

// Stream-ordered allocation without a pool: the memory comes from an
// ordinary Malloc (one round trip) and is usable at once, so at the
// stream's point too; the free is the ordinary one, which rc-server runs
// after the work already sent. In a stream capture both become graph
// memory nodes (graph_memory_runtime.cpp).
cudaError_t Runtime::mallocAsync(void **ptr, size_t size, cudaStream_t stream) {
  if (!ptr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t sid;
  if (cudaError_t err = connectedStreamLocked(stream, false, &sid))
    return err;
  if (!graphs_.capturing(sid))
    return mallocLocked(ptr, size, "cudaMallocAsync");
  GraphNode node;
  if (cudaError_t err =
          graphAllocationLocked(size, "cudaMallocAsync (captured)", &node))
    return err;
  uint64_t addr = node.dst;
  bool captured;
  if (cudaError_t err = captureLocked(sid, std::move(node), &captured)) {
    graphAllocs_.erase(addr);
    freeLocked(reinterpret_cast<void *>(uintptr_t(addr)));
    return err;
  }
  *ptr = reinterpret_cast<void *>(uintptr_t(addr));
  return cudaSuccess;
}

cudaError_t Runtime::freeAsync(void *ptr, cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t sid;
    if (cudaError_t err = connectedStreamLocked(stream, false, &sid))
      return err;
    if (graphs_.capturing(sid)) {
      if (!graphAllocs_.count(addrOf(ptr)))
        return reportUnsupported("cudaFreeAsync in a stream capture of "
                                 "memory no graph allocated");
      GraphNode node;
      node.memory = MemoryStep::Free;
      node.dst = addrOf(ptr);
      bool captured;
      return captureLocked(sid, std::move(node), &captured);
    }
  }
  return free(ptr);
}

cudaError_t Runtime::memset(void *dst, int value, size_t count,
                            cudaStream_t stream, bool perThread) {
  if (count == 0)
    return cudaSuccess;
  if (!dst)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  if (cudaError_t err =
          checkDeviceRangeLocked("cudaMemset", "destination", dst, count))
    return err;
  if (managed_.meetsHostAttached(dst, count)) {
    std::fprintf(stderr,
                 "remote-clang: cudaMemset: 0x%" PRIx64 " is managed memory "
                 "attached to the host (cudaMemAttachHost), which the device "
                 "may not touch on GPUs without concurrent managed access; "
                 "attach it to a stream or globally first "
                 "(cudaStreamAttachMemAsync) (cudaErrorInvalidValue)\n",
                 addrOf(dst));
    return cudaErrorInvalidValue;
  }
  uint64_t sid;
  if (cudaError_t err = wireStreamLocked(stream, perThread, &sid))
    return err;
  if (graphs_.capturing(sid)) { // a graph node instead (graph_runtime.cpp)
    bool captured;
    return captureLocked(sid, GraphNode::memset(dst, uint8_t(value), count),
                         &captured);
  }
  ensureDeviceLocked();
  appendLocked(
      wire::Command::Memset,
      wire::CreateMemset(batch_.fbb(), addrOf(dst), uint8_t(value), count, sid)
          .Union(),
      {"cudaMemset", 0});
  afterAppendLocked();
  return cudaSuccess;
}

// ---- symbols --------------------------------------------------------------

cudaError_t Runtime::variableLocked(const void *symbol,
                                    const manifest::Variable **var) {
  uint64_t moduleHash;
  std::string name;
  if (!symbol ||
      !StartupRegistry::instance().variable(symbol, &moduleHash, &name))
    return cudaErrorInvalidSymbol;
  *var = index_.variableFor(moduleHash, name);
  if (!*var) {
    std::fprintf(stderr,
                 "remote-clang: device variable %s is registered but no "
                 "loaded manifest describes it (is <program>.rcm beside the "
                 "binary, or in RC_MANIFEST?)\n",
                 name.c_str());
    return cudaErrorInvalidSymbol;
  }
  return cudaSuccess;
}

// One round trip per variable per session; the address is then cached and
// symbol copies become plain device copies.
cudaError_t Runtime::symbolAddressLocked(const manifest::Variable *var,
                                         uint64_t *addr) {
  auto key = std::make_pair(threadDevice(), var->id());
  auto it = symbolAddrs_.find(key);
  if (it != symbolAddrs_.end()) {
    *addr = it->second;
    return cudaSuccess;
  }
  ensureDeviceLocked();
  bool filled = false;
  Sink sink;
  sink.index =
      appendLocked(wire::Command::SymbolAddress,
                   wire::CreateSymbolAddress(batch_.fbb(), var->id()).Union(),
                   {"cudaGetSymbolAddress", 0});
  sink.addr = addr;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (!filled || !*addr)
    return cudaErrorInvalidSymbol;
  symbolAddrs_[key] = *addr;
  symbolRanges_[*addr] = var->size();
  return cudaSuccess;
}

cudaError_t Runtime::symbolAddress(void **devPtr, const void *symbol) {
  if (!devPtr)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  const manifest::Variable *var;
  if (cudaError_t err = variableLocked(symbol, &var))
    return err;
  uint64_t addr = 0;
  if (cudaError_t err = symbolAddressLocked(var, &addr))
    return err;
  *devPtr = reinterpret_cast<void *>(uintptr_t(addr));
  return cudaSuccess;
}

cudaError_t Runtime::symbolSize(size_t *size, const void *symbol) {
  if (!size)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  const manifest::Variable *var;
  if (cudaError_t err = variableLocked(symbol, &var))
    return err;
  *size = var->size();
  return cudaSuccess;
}

cudaError_t Runtime::symbolRangeLocked(const void *symbol, size_t count,
                                       size_t offset, uint64_t *addr) {
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  const manifest::Variable *var;
  if (cudaError_t err = variableLocked(symbol, &var))
    return err;
  if (offset > var->size() || count > var->size() - offset)
    return cudaErrorInvalidValue;
  if (cudaError_t err = symbolAddressLocked(var, addr))
    return err;
  *addr += offset;
  return cudaSuccess;
}

cudaError_t Runtime::memcpyToSymbol(const void *symbol, const void *src,
                                    size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream,
                                    bool async, bool perThread) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t addr;
  if (cudaError_t err = symbolRangeLocked(symbol, count, offset, &addr))
    return err;
  // cudaMemcpyDefault resolves in memcpyLocked (the symbol is device memory).
  return memcpyLocked(reinterpret_cast<void *>(uintptr_t(addr)), src, count,
                      kind, stream, async, perThread,
                      async ? "cudaMemcpyToSymbolAsync" : "cudaMemcpyToSymbol");
}

cudaError_t Runtime::memcpyFromSymbol(void *dst, const void *symbol,
                                      size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream,
                                      bool async, bool perThread) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t addr;
  if (cudaError_t err = symbolRangeLocked(symbol, count, offset, &addr))
    return err;
  return memcpyLocked(dst, reinterpret_cast<void *>(uintptr_t(addr)), count,
                      kind, stream, async, perThread,
                      async ? "cudaMemcpyFromSymbolAsync"
                            : "cudaMemcpyFromSymbol");
}

} // namespace rc::rt
