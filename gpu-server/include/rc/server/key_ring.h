// The keys rc-server accepts now (--auth-key-file), replaced whole when
// SIGHUP reloads the file (docs/metrics.md, "Configuration and reload").
// Readers take a snapshot, which stays valid and unchanged however often
// the ring is replaced: a handshake checks one proof against one set of
// keys from start to end.
#ifndef RC_SERVER_KEY_RING_H
#define RC_SERVER_KEY_RING_H

#include "rc/auth/key_file.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rc::server {

class KeyRing {
public:
  using Keys = std::vector<auth::Key>;
  explicit KeyRing(Keys keys);

  std::shared_ptr<const Keys> snapshot() const;
  // Replaces the keys; returns the ids no longer among them.
  std::vector<std::string> replace(Keys keys);
  // True while `keyId` is one of the keys.
  bool holds(const std::string &keyId) const;
  // Moves on every replace(): a reader that saw this value need not look
  // again until it changes.
  uint64_t generation() const { return generation_; }

private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Keys> keys_;
  std::atomic<uint64_t> generation_{0};
};

} // namespace rc::server

#endif
