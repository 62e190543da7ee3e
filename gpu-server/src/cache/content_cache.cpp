#include "rc/server/content_cache.h"

#include <algorithm>
#include <tuple>

namespace rc::server {

namespace {
// The pool is allocated in slabs of this size: one pinned allocation of
// many GiB can fail where several smaller ones succeed.
constexpr uint64_t kSlabBytes = 256ull << 20;
} // namespace

bool ContentCache::Key::operator<(const Key &o) const {
  return std::tie(space, hash.high, hash.low, size) <
         std::tie(o.space, o.hash.high, o.hash.low, o.size);
}

ContentCache::ContentCache(const Options &options, Allocate allocate,
                           Release release)
    : options_(options), release_(std::move(release)) {
  uint64_t slotsWanted =
      options_.chunkBytes ? options_.capacity / options_.chunkBytes : 0;
  uint64_t perSlab = std::max<uint64_t>(1, kSlabBytes / options_.chunkBytes);
  while (slots_.size() < slotsWanted) {
    uint64_t n = std::min<uint64_t>(perSlab, slotsWanted - slots_.size());
    uint8_t *slab = allocate(n * options_.chunkBytes);
    if (!slab) {
      slots_.clear(); // not ok(): the caller reports it
      break;
    }
    slabs_.push_back(slab);
    for (uint64_t i = 0; i < n; ++i)
      slots_.push_back(slab + i * options_.chunkBytes);
  }
  free_ = slots_;
  protectedSlots_ = slots_.size() * 3 / 4;
  stats_.capacity = uint64_t(slots_.size()) * options_.chunkBytes;
  verifier_ = std::thread([this] { verifierMain(); });
}

ContentCache::~ContentCache() {
  {
    std::lock_guard<std::mutex> lock(verifyMutex_);
    stopping_ = true;
  }
  verifyWake_.notify_all();
  verifier_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear(); // gives the slots back
    probation_.clear();
    protected_.clear();
  }
  for (uint8_t *slab : slabs_)
    release_(slab);
}

ContentCache::Ref ContentCache::find(const std::string &space,
                                     const ContentHash &hash, uint64_t size) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(Key{space, hash, size});
    if (it != index_.end() && it->second.published)
      return hitLocked(it->second);
    if (it != index_.end() || !files_ || !files_->has(space, hash, size)) {
      ++stats_.misses; // absent, or on its way into the pool
      return nullptr;
    }
  }
  Ref chunk = fromDisk(space, hash, size);
  if (!chunk) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.misses;
  }
  return chunk;
}

ContentCache::Ref ContentCache::hitLocked(Entry &e) {
  if (e.guarded) {
    protected_.splice(protected_.begin(), protected_, e.lru);
  } else { // used again: protected from here on
    protected_.splice(protected_.begin(), probation_, e.lru);
    e.guarded = true;
    if (protected_.size() > protectedSlots_) {
      Entry &oldest = index_.at(protected_.back());
      oldest.guarded = false;
      probation_.splice(probation_.begin(), protected_, oldest.lru);
    }
  }
  ++e.hits;
  ++stats_.hits;
  stats_.bytesSaved += e.chunk->size;
  return e.chunk;
}

// A file is no more trusted than a client: its bytes are hashed again in
// the slot they will be copied from.
ContentCache::Ref ContentCache::fromDisk(const std::string &space,
                                         const ContentHash &hash,
                                         uint64_t size) {
  std::shared_ptr<Chunk> chunk = reserve(space, hash, size);
  if (!chunk)
    return nullptr;
  if (!files_->read(space, hash, size, chunk->data) ||
      hashContent(chunk->data, size) != hash) {
    files_->remove(space, hash, size);
    abandon(chunk);
    return nullptr;
  }
  publish(chunk, true);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(Key{space, hash, size});
  if (it == index_.end() || it->second.chunk != chunk)
    return nullptr;
  ++stats_.diskHits;
  return hitLocked(it->second);
}

std::shared_ptr<ContentCache::Chunk>
ContentCache::reserve(const std::string &space, const ContentHash &hash,
                      uint64_t size) {
  if (size == 0 || size > options_.chunkBytes)
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  Key key{space, hash, size};
  if (index_.count(key))
    return nullptr;
  uint8_t *slot = takeSlotLocked();
  if (!slot) {
    ++stats_.refused;
    return nullptr;
  }
  // The slot goes back to the pool with the chunk's last reference.
  std::shared_ptr<Chunk> chunk(new Chunk{space, hash, size, slot},
                               [this](Chunk *c) {
                                 giveSlot(c->data);
                                 delete c;
                               });
  index_[key].chunk = chunk;
  return chunk;
}

uint8_t *ContentCache::takeSlotLocked() {
  {
    std::lock_guard<std::mutex> lock(freeMutex_);
    if (!free_.empty()) {
      uint8_t *slot = free_.back();
      free_.pop_back();
      return slot;
    }
  }
  // The least recently used chunk that nobody reads (the index holds the
  // only reference), on probation first: dropping it gives its slot back.
  for (std::list<Key> *list : {&probation_, &protected_})
    for (auto it = list->rbegin(); it != list->rend(); ++it) {
      auto entry = index_.find(*it);
      if (entry->second.chunk.use_count() != 1)
        continue;
      ++stats_.evicted;
      dropLocked(entry);
      std::lock_guard<std::mutex> lock(freeMutex_);
      uint8_t *slot = free_.back();
      free_.pop_back();
      return slot;
    }
  return nullptr;
}

void ContentCache::dropLocked(std::map<Key, Entry>::iterator entry) {
  stats_.bytes -= entry->second.chunk->size;
  listOf(entry->second).erase(entry->second.lru);
  index_.erase(entry); // the slot goes back with the chunk's last reference
}

void ContentCache::giveSlot(uint8_t *slot) {
  std::lock_guard<std::mutex> lock(freeMutex_);
  free_.push_back(slot);
}

void ContentCache::publish(const std::shared_ptr<Chunk> &chunk, bool verified) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(Key{chunk->space, chunk->hash, chunk->size});
  if (it == index_.end() || it->second.chunk != chunk)
    return;
  if (!verified) {
    index_.erase(it);
    return;
  }
  it->second.published = true;
  probation_.push_front(it->first);
  it->second.lru = probation_.begin();
  ++stats_.inserted;
  stats_.bytes += chunk->size;
}

void ContentCache::abandon(const std::shared_ptr<Chunk> &chunk) {
  publish(chunk, false);
}

void ContentCache::verifyLater(std::shared_ptr<Chunk> chunk) {
  {
    std::lock_guard<std::mutex> lock(verifyMutex_);
    toVerify_.push_back(std::move(chunk));
  }
  verifyWake_.notify_one();
}

// The server trusts no client's hash: the bytes it keeps are hashed here,
// off the sessions' threads, before any lookup can return them.
void ContentCache::verifierMain() {
  std::unique_lock<std::mutex> lock(verifyMutex_);
  for (;;) {
    verifyWake_.wait(lock, [&] { return stopping_ || !toVerify_.empty(); });
    if (toVerify_.empty())
      return; // stopping
    std::shared_ptr<Chunk> chunk = std::move(toVerify_.front());
    toVerify_.pop_front();
    ++verifying_;
    lock.unlock();
    bool match = hashContent(chunk->data, chunk->size) == chunk->hash;
    publish(chunk, match);
    if (match && files_)
      files_->write(chunk->space, chunk->hash, chunk->size, chunk->data);
    if (!match) {
      std::lock_guard<std::mutex> statsLock(mutex_);
      ++stats_.rejected;
    }
    chunk.reset();
    lock.lock();
    --verifying_;
    verifyDone_.notify_all();
  }
}

void ContentCache::settle() {
  std::unique_lock<std::mutex> lock(verifyMutex_);
  verifyDone_.wait(lock, [&] { return toVerify_.empty() && verifying_ == 0; });
}

ContentCache::Stats ContentCache::stats() const {
  Stats s;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    s = stats_;
    s.chunks = probation_.size() + protected_.size(); // the published ones
  }
  if (files_) {
    s.diskChunks = files_->count();
    s.diskBytes = files_->bytes();
  }
  return s;
}

std::vector<ContentCache::Listed>
ContentCache::list(const std::string &space) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Listed> out;
  for (const std::list<Key> *list : {&protected_, &probation_})
    for (const Key &key : *list)
      if (key.space == space)
        out.push_back({key.hash, key.size, index_.at(key).hits});
  return out;
}

size_t ContentCache::evict(const std::string &space,
                           const std::vector<ContentHash> &hashes) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::map<Key, Entry>::iterator> named;
  for (auto entry = index_.begin(); entry != index_.end(); ++entry) {
    const Key &key = entry->first;
    if (key.space == space && entry->second.published &&
        entry->second.chunk.use_count() == 1 &&
        (hashes.empty() ||
         std::find(hashes.begin(), hashes.end(), key.hash) != hashes.end()))
      named.push_back(entry);
  }
  for (auto entry : named) {
    ++stats_.evicted;
    dropLocked(entry);
  }
  if (files_) // and what the disk tier keeps, or it would come back
    files_->evict(space, hashes);
  return named.size();
}

} // namespace rc::server
