#include "rc/server/key_ring.h"

namespace rc::server {

KeyRing::KeyRing(Keys keys)
    : keys_(std::make_shared<const Keys>(std::move(keys))) {}

std::shared_ptr<const KeyRing::Keys> KeyRing::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return keys_;
}

std::vector<std::string> KeyRing::replace(Keys keys) {
  auto fresh = std::make_shared<const Keys>(std::move(keys));
  std::vector<std::string> removed;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auth::Key &old : *keys_) {
    bool kept = false;
    for (const auth::Key &k : *fresh)
      kept = kept || k.id == old.id;
    if (!kept)
      removed.push_back(old.id);
  }
  keys_ = std::move(fresh);
  ++generation_;
  return removed;
}

bool KeyRing::holds(const std::string &keyId) const {
  std::shared_ptr<const Keys> keys = snapshot();
  for (const auth::Key &k : *keys)
    if (k.id == keyId)
      return true;
  return false;
}

} // namespace rc::server
