// What names a chunk of an upload in the server's content cache
// (docs/server-internals/content-cache.md, "Content cache"): the XXH3-128 hash
// of its bytes, from the xxHash library. Client and server must hash alike, so
// both call this.
//
// Why XXH3-128 rather than a cryptographic hash: a client hashes every byte
// of every large upload, and XXH3 runs at memory speed (tens of GB/s a
// core) where SHA-256 manages ~2 GB/s; a model load would wait on SHA-256.
// What a non-cryptographic hash leaves open is closed elsewhere: the server
// hashes what it stores itself, and a cache namespace never spans tenants
// (docs/server.md says why that rules out getting someone else's data).
#ifndef RC_CONTENT_HASH_H
#define RC_CONTENT_HASH_H

#include "protocol_generated.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rc {

struct ContentHash {
  uint64_t low = 0, high = 0;
  bool operator==(const ContentHash &o) const {
    return low == o.low && high == o.high;
  }
  bool operator!=(const ContentHash &o) const { return !(*this == o); }
  wire::ChunkHash wire() const { return {low, high}; }
  static ContentHash of(const wire::ChunkHash &h) {
    return {h.low(), h.high()};
  }
  std::string hex() const; // 32 digits, high half first
  // Reads hex()'s form back; false unless `text` is 32 hex digits.
  static bool parse(const std::string &text, ContentHash *out);
};

ContentHash hashContent(const void *data, size_t size);

// The chunks of an upload of `size` bytes from `data`, `chunkBytes` each
// from its start (the last one shorter), as a client names them. (The
// runtime hashes on its bulk threads: runtime/src/core/worker_pool.h.)
std::vector<ContentHash> hashChunks(const uint8_t *data, uint64_t size,
                                    uint64_t chunkBytes);

} // namespace rc

#endif
