// The content cache's disk tier (rc-server --cache-dir; docs/server.md,
// "Content cache"): chunks kept as files in a directory, so that a
// restarted server still holds what clients uploaded. At most `maxBytes`
// of them; the least recently used file goes first.
//
// Layout: DIR/<namespace in hex>/<hash>-<size>, each written to a
// temporary name and renamed, mode 0600 in directories of mode 0700. What
// a file holds is never trusted: the cache hashes it again when it reads
// it back (content_cache.h).
#ifndef RC_SERVER_CHUNK_FILES_H
#define RC_SERVER_CHUNK_FILES_H

#include "rc/content_hash.h"

#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace rc::server {

class ChunkFiles {
public:
  // Creates DIR if need be and indexes the chunk files already there
  // (others are left alone); false and *why if DIR cannot be used.
  bool open(const std::string &dir, uint64_t maxBytes, std::string *why);

  bool has(const std::string &space, const ContentHash &hash, uint64_t size);
  // The file's `size` bytes into `into`; false if it is gone or short
  // (then forgotten).
  bool read(const std::string &space, const ContentHash &hash, uint64_t size,
            uint8_t *into);
  // Keeps `size` bytes as a file, dropping the least recently used files
  // past maxBytes; false if it could not be written (a full disk: the
  // chunk stays in memory only).
  bool write(const std::string &space, const ContentHash &hash, uint64_t size,
             const uint8_t *data);
  void remove(const std::string &space, const ContentHash &hash, uint64_t size);
  // Removes the files of `space` with these hashes (every size), or all of
  // the namespace's for an empty list; returns how many went.
  size_t evict(const std::string &space,
               const std::vector<ContentHash> &hashes);

  uint64_t bytes() const;
  size_t count() const;

private:
  struct Name {
    std::string space;
    ContentHash hash;
    uint64_t size;
    bool operator<(const Name &o) const {
      return std::tie(space, hash.high, hash.low, size) <
             std::tie(o.space, o.hash.high, o.hash.low, o.size);
    }
  };
  std::string pathOf(const Name &n) const;
  std::string dirOf(const std::string &space) const;
  void forgetLocked(std::map<Name, std::list<Name>::iterator>::iterator it);

  std::string dir_;
  uint64_t maxBytes_ = 0;
  mutable std::mutex mutex_;
  std::list<Name> lru_; // most recently used first
  std::map<Name, std::list<Name>::iterator> index_;
  uint64_t bytes_ = 0;
};

} // namespace rc::server

#endif
