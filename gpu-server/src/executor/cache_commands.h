// The content cache's commands (docs/server-internals/content-cache.md,
// "Content cache"): uploads named by their chunks' hashes, insertions of
// uploaded chunks, rc-cache's listing and eviction; and the copies from or
// into the cache's chunks still on a stream, each with the event after it
// and the context that recorded it: a chunk stays referenced until its copy
// is done. The cache itself is rc/server/content_cache.h.
#ifndef RC_SERVER_CACHE_COMMANDS_H
#define RC_SERVER_CACHE_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/reply_writer.h"
#include "protocol_generated.h"
#include "rc/server/content_cache.h"
#include "rc/server/session_metrics.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rc::server {

class CacheCommands {
public:
  CacheCommands(DeviceBinding &devices, AllocationTable &memory,
                ReplyWriter &reply)
      : devices_(devices), memory_(memory), reply_(reply) {}
  // The server's content cache and the session's namespace in it (its
  // tenant); null: none (the cache's commands fail naming it).
  void setContentCache(ContentCache *cache, std::string space) {
    cache_ = cache;
    cacheSpace_ = std::move(space);
  }
  void setMetrics(SessionMetrics *metrics) { metrics_ = metrics; }
  // Hands finished copies on: reads release their chunks, insertions go to
  // the cache's verifier. With `wait`, waits for every one first (before
  // memory they may touch goes, or their contexts do).
  void settleCopies(bool wait);

  OpStatus handle(const wire::MemcpyH2DCached &c, CommandAnswer &a);
  OpStatus handle(const wire::CacheInsert &c, CommandAnswer &a);
  OpStatus handle(const wire::CacheControl &c, CommandAnswer &a);

private:
  struct CacheCopy {
    std::vector<ContentCache::Ref> reads;
    std::shared_ptr<ContentCache::Chunk> insert;
    DeviceContext *ctx = nullptr;
    NativeHandle event = 0;
  };
  OpStatus trackCacheCopy(CacheCopy copy, NativeHandle stream);
  // The bound context's stream that copies uploaded chunks into the pool.
  OpStatus cacheStream(NativeHandle *out);
  OpStatus afterOnCacheStream(NativeHandle stream, NativeHandle *side);

  DeviceBinding &devices_;
  AllocationTable &memory_;
  ReplyWriter &reply_;
  SessionMetrics *metrics_ = nullptr;
  ContentCache *cache_ = nullptr;
  std::string cacheSpace_;
  std::deque<CacheCopy> cacheCopies_;
  std::map<DeviceContext *, NativeHandle> cacheStreams_; // per context
};

} // namespace rc::server

#endif
