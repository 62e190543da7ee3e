// The server's content cache (rc-server --cache;
// docs/server-internals/content-cache.md, "Content cache"): chunks of uploads
// kept in pinned host memory, shared by every session of one namespace and kept
// across sessions, so that an upload the server has seen before (a model's
// weights, loaded again) sends hashes instead of bytes and the GPU copies it
// from here at DMA speed.
//
// A chunk enters as a reservation (reserve(): a slot of the pool, not yet
// visible), the session copies the device's bytes into it, and the cache's
// verifier thread hashes them and publishes the chunk only if the hash is
// the one the client claimed (verifyLater()). Lookups see published chunks
// only. A chunk is named by (namespace, hash, size); a namespace is a
// tenant, so nothing a client of one tenant inserts reaches another.
//
// Eviction is a segmented LRU: a new chunk waits in a probation list, and
// its first hit moves it to a protected one (at most 3/4 of the pool),
// whose least recently used chunk goes back to probation when it is full.
// Room is made from probation first: uploads seen once (a prompt's
// activations over tcp) churn among themselves and do not push out what
// was used again (a model's weights).
//
// Slots return to the pool when the last reference to their chunk goes:
// a copy still reading a chunk keeps its Ref, so eviction never hands out
// memory the GPU is reading.
#ifndef RC_SERVER_CONTENT_CACHE_H
#define RC_SERVER_CONTENT_CACHE_H

#include "rc/content_hash.h"
#include "rc/server/chunk_files.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace rc::server {

class ContentCache {
public:
  struct Options {
    uint64_t capacity = 0;         // bytes of chunks held at most
    uint64_t chunkBytes = 4 << 20; // an upload's chunks (the last shorter)
    uint64_t minUpload = 1 << 20;  // smaller uploads are not named by hash
  };
  // Pinned memory of `bytes` for the pool (null: none), and its release.
  using Allocate = std::function<uint8_t *(uint64_t bytes)>;
  using Release = std::function<void(uint8_t *)>;
  // Allocates the whole pool now (a start-up cost, not a first session's);
  // ok() says whether it could.
  ContentCache(const Options &options, Allocate allocate, Release release);
  ~ContentCache(); // stops the verifier; every Ref must be gone
  bool ok() const { return !slots_.empty(); }
  // The disk tier (chunk_files.h), before the first session: every chunk
  // published is also written there, and a chunk the pool lacks is looked
  // for there (read into a slot and hashed again before it is used).
  void useDiskTier(std::unique_ptr<ChunkFiles> files) {
    files_ = std::move(files);
  }
  const Options &options() const { return options_; }

  struct Chunk {
    std::string space;
    ContentHash hash;
    uint64_t size = 0;
    uint8_t *data = nullptr; // chunkBytes of pinned memory
  };
  using Ref = std::shared_ptr<const Chunk>;

  // A published chunk (and a hit, counted) or null (a miss).
  Ref find(const std::string &space, const ContentHash &hash, uint64_t size);
  // A slot for a chunk not yet held, taking the least recently used chunk
  // nobody reads when the pool is full; null when the chunk is held or on
  // its way already, or every slot is in use.
  std::shared_ptr<Chunk> reserve(const std::string &space,
                                 const ContentHash &hash, uint64_t size);
  // Once the reservation's bytes are in: hashes them on the verifier
  // thread and publishes the chunk if they match its hash; else drops it
  // (counted as rejected). `abandon` drops it at once (its copy failed).
  void verifyLater(std::shared_ptr<Chunk> chunk);
  void abandon(const std::shared_ptr<Chunk> &chunk);
  // Waits until every chunk handed to verifyLater so far is published or
  // dropped (tests, and rc-cache's listing).
  void settle();

  struct Stats {
    uint64_t hits = 0, misses = 0, bytesSaved = 0; // bytes not sent
    uint64_t inserted = 0, rejected = 0, evicted = 0, refused = 0;
    // Published chunks (stats() counts them) and their bytes; the pool.
    uint64_t chunks = 0, bytes = 0, capacity = 0;
    // The disk tier: chunks read back from it, and what it holds.
    uint64_t diskHits = 0, diskChunks = 0, diskBytes = 0;
  };
  Stats stats() const;
  // The published chunks of `space`, most recently used first.
  struct Listed {
    ContentHash hash;
    uint64_t size = 0, hits = 0;
  };
  std::vector<Listed> list(const std::string &space) const;
  // Drops the chunks of `space` named (all of them for an empty list) that
  // nobody reads now, and their files in the disk tier; returns how many
  // went from memory.
  size_t evict(const std::string &space,
               const std::vector<ContentHash> &hashes);

private:
  struct Key {
    std::string space;
    ContentHash hash;
    uint64_t size;
    bool operator<(const Key &o) const;
  };
  struct Entry {
    std::shared_ptr<Chunk> chunk;
    bool published = false;
    uint64_t hits = 0;
    bool guarded = false;         // in protected_, else in probation_
    std::list<Key>::iterator lru; // valid once published
  };
  std::list<Key> &listOf(const Entry &e) {
    return e.guarded ? protected_ : probation_;
  }
  void dropLocked(std::map<Key, Entry>::iterator entry); // a published one
  // A hit on a published entry: counted, moved up its list.
  Ref hitLocked(Entry &e);
  // A chunk the pool lacks, from the disk tier; null if it has none that
  // hashes right.
  Ref fromDisk(const std::string &space, const ContentHash &hash,
               uint64_t size);
  uint8_t *takeSlotLocked(); // a free slot, evicting if need be; or null
  void giveSlot(uint8_t *slot);
  void publish(const std::shared_ptr<Chunk> &chunk, bool verified);
  void verifierMain();

  const Options options_;
  Release release_;
  std::vector<uint8_t *> slabs_;
  std::vector<uint8_t *> slots_; // every slot, for the count

  mutable std::mutex mutex_; // index, LRU, stats; before freeMutex_
  std::map<Key, Entry> index_;
  // Published chunks, most recent first (see the top of this file).
  std::list<Key> probation_, protected_;
  size_t protectedSlots_ = 0;
  Stats stats_;

  std::mutex freeMutex_; // the free slots (chunks give theirs back here)
  std::vector<uint8_t *> free_;

  std::unique_ptr<ChunkFiles> files_; // the disk tier, or null

  std::mutex verifyMutex_;
  std::condition_variable verifyWake_, verifyDone_;
  std::deque<std::shared_ptr<Chunk>> toVerify_;
  size_t verifying_ = 0;
  bool stopping_ = false;
  std::thread verifier_;
};

} // namespace rc::server

#endif
