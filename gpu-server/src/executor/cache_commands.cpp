// The content cache's commands (cache_commands.h says what they are).
#include "executor/cache_commands.h"

#include "rc/server/errors.h"

namespace rc::server {

namespace {
OpStatus noCache() {
  return OpStatus::fail(kErrInvalidValue,
                        "this server keeps no content cache (rc-server "
                        "--cache SIZE)");
}

// rc-cache's listing caps what one reply carries.
constexpr size_t kMaxListed = 10000;
} // namespace

OpStatus CacheCommands::handle(const wire::MemcpyH2DCached &c,
                               CommandAnswer &a) {
  if (!cache_)
    return noCache();
  const uint64_t chunkBytes = cache_->options().chunkBytes;
  const uint64_t size = c.size();
  const uint64_t count = c.chunks() ? c.chunks()->size() : 0;
  if (size == 0 || count != (size - 1) / chunkBytes + 1)
    return OpStatus::fail(kErrInvalidValue,
                          std::to_string(count) +
                              " chunk hashes for an upload of " +
                              std::to_string(size) + " bytes in chunks of " +
                              std::to_string(chunkBytes));
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() ||
      !(st = memory_.checkRange("destination", c.dst(), size)).ok())
    return st;
  std::vector<uint32_t> missing;
  CacheCopy copy;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t offset = uint64_t(i) * chunkBytes;
    uint64_t n = std::min(chunkBytes, size - offset);
    ContentCache::Ref chunk =
        cache_->find(cacheSpace_, ContentHash::of(*c.chunks()->Get(i)), n);
    if (!chunk) {
      missing.push_back(i);
      continue;
    }
    // From the pinned pool in stream order, as an upload from
    // cudaMallocHost memory would go.
    if (!(st = devices_.ctx()->copyH2DFromHostAlloc(c.dst() + offset,
                                                    chunk->data, n, s))
             .ok())
      return st;
    copy.reads.push_back(std::move(chunk));
    if (metrics_)
      metrics_->bytesInCached.add(n);
  }
  if (!copy.reads.empty() && !(st = trackCacheCopy(std::move(copy), s)).ok())
    return st;
  std::vector<uint8_t> bytes(missing.size() * 4);
  for (size_t i = 0; i < missing.size(); ++i)
    for (int b = 0; b < 4; ++b) // little-endian, as the schema says
      bytes[i * 4 + size_t(b)] = uint8_t(missing[i] >> (8 * b));
  a.result.payload = reply_.builder().CreateVector(bytes);
  a.give();
  return st;
}

OpStatus CacheCommands::handle(const wire::CacheInsert &c, CommandAnswer &) {
  if (!cache_)
    return noCache();
  if (!c.hash())
    return OpStatus::fail(kErrInvalidValue, "a cache insertion without a hash");
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok() ||
      !(st = memory_.checkRange("source", c.dst(), c.size())).ok())
    return st;
  // Null: held already, on its way, too large, or no slot free of readers;
  // the upload itself has happened, so that is no error.
  std::shared_ptr<ContentCache::Chunk> chunk =
      cache_->reserve(cacheSpace_, ContentHash::of(*c.hash()), c.size());
  if (!chunk)
    return st;
  // The device holds the upload's bytes at this point of the stream: copy
  // them back (the copy engine, not this thread), then have them verified.
  // The copy goes on the cache's own stream, so the uploads that follow on
  // `s` do not wait for it; should the bytes change before it runs (a
  // kernel, a race in the program), their hash differs and the verifier
  // keeps nothing.
  NativeHandle side = 0;
  if (!(st = afterOnCacheStream(s, &side)).ok() ||
      !(st = devices_.ctx()->copyD2HToHostAlloc(chunk->data, c.dst(), c.size(),
                                                side))
           .ok()) {
    cache_->abandon(chunk);
    return st;
  }
  CacheCopy copy;
  copy.insert = chunk;
  if (!(st = trackCacheCopy(std::move(copy), side)).ok())
    cache_->abandon(chunk);
  return st;
}

OpStatus CacheCommands::cacheStream(NativeHandle *out) {
  auto it = cacheStreams_.find(devices_.ctx());
  if (it != cacheStreams_.end()) {
    *out = it->second;
    return OpStatus::success();
  }
  // Non-blocking: work on the legacy stream does not wait for pool copies.
  // The stream goes with the session's context.
  OpStatus st = devices_.ctx()->streamCreate(kStreamNonBlocking, 0, out);
  if (st.ok())
    cacheStreams_[devices_.ctx()] = *out;
  return st;
}

// The cache's stream, waiting for what `stream` has been given so far.
OpStatus CacheCommands::afterOnCacheStream(NativeHandle stream,
                                           NativeHandle *side) {
  NativeHandle uploaded = 0;
  OpStatus st = cacheStream(side);
  if (st.ok() &&
      (st = devices_.ctx()->eventCreate(kEventDisableTiming, &uploaded)).ok()) {
    if ((st = devices_.ctx()->eventRecord(uploaded, stream)).ok())
      st = devices_.ctx()->streamWaitEvent(*side, uploaded, 0);
    devices_.ctx()->eventDestroy(uploaded); // the wait holds what it needs
  }
  return st;
}

OpStatus CacheCommands::trackCacheCopy(CacheCopy copy, NativeHandle stream) {
  OpStatus st = devices_.ctx()->eventCreate(kEventDisableTiming, &copy.event);
  if (st.ok() && !(st = devices_.ctx()->eventRecord(copy.event, stream)).ok())
    devices_.ctx()->eventDestroy(copy.event);
  if (!st.ok()) {
    // No event to tell when the copies are done: wait for them here, so
    // that no slot is given to another chunk while the GPU still reads or
    // writes it.
    devices_.ctx()->streamSynchronize(stream);
    return st;
  }
  copy.ctx = devices_.ctx();
  cacheCopies_.push_back(std::move(copy));
  return st;
}

void CacheCommands::settleCopies(bool wait) {
  while (!cacheCopies_.empty()) {
    CacheCopy &copy = cacheCopies_.front();
    OpStatus st = wait ? copy.ctx->eventSynchronize(copy.event)
                       : copy.ctx->eventQuery(copy.event);
    if (!wait && st.code == kErrNotReady)
      break; // the next time; copies on the other stream wait their turn
    copy.ctx->eventDestroy(copy.event);
    if (copy.insert) {
      if (st.ok())
        cache_->verifyLater(std::move(copy.insert));
      else
        cache_->abandon(copy.insert); // the copy failed: nothing to keep
    }
    cacheCopies_.pop_front();
  }
}

OpStatus CacheCommands::handle(const wire::CacheControl &c, CommandAnswer &a) {
  if (!cache_)
    return noCache();
  std::vector<ContentHash> named;
  if (c.hashes())
    for (const wire::ChunkHash *h : *c.hashes())
      named.push_back(ContentHash::of(*h));
  settleCopies(true); // this session's own insertions count too
  cache_->settle();
  size_t evicted = c.evict() ? cache_->evict(cacheSpace_, named) : 0;
  std::vector<ContentCache::Listed> chunks = cache_->list(cacheSpace_);
  uint64_t bytes = 0;
  for (const ContentCache::Listed &l : chunks)
    bytes += l.size;
  // Only this namespace's chunks: the pool's size and use move with other
  // tenants' uploads, and how often they hit is the operator's (--metrics),
  // not a client's.
  std::string json =
      "{\"chunk_bytes\": " + std::to_string(cache_->options().chunkBytes) +
      ", \"evicted\": " + std::to_string(evicted) +
      ", \"chunks_held\": " + std::to_string(chunks.size()) +
      ", \"bytes_held\": " + std::to_string(bytes) + ", \"chunks\": [";
  for (size_t i = 0; i < chunks.size() && i < kMaxListed; ++i)
    json += std::string(i ? ", " : "") + "{\"hash\": \"" +
            chunks[i].hash.hex() +
            "\", \"size\": " + std::to_string(chunks[i].size) +
            ", \"hits\": " + std::to_string(chunks[i].hits) + "}";
  json += "]}";
  a.result.payload = reply_.builder().CreateVector(
      reinterpret_cast<const uint8_t *>(json.data()), json.size());
  a.give();
  return OpStatus::success();
}

} // namespace rc::server
