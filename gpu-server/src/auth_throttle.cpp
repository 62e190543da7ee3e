#include "rc/server/auth_throttle.h"

#include <algorithm>
#include <chrono>

namespace rc::server {

uint64_t AuthThrottle::nowMs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

uint64_t AuthThrottle::waitMs(const std::string &source,
                              const std::string &keyId, uint64_t nowMs) const {
  uint64_t until = std::max(sources_.untilMs(source), keyIds_.untilMs(keyId));
  return until > nowMs ? until - nowMs : 0;
}

void AuthThrottle::recordFailure(const std::string &source,
                                 const std::string &keyId, uint64_t nowMs) {
  ++failures_;
  sources_.fail(source, nowMs);
  keyIds_.fail(keyId, nowMs);
}

uint64_t AuthThrottle::Table::untilMs(const std::string &name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(name);
  return it == entries_.end() ? 0 : it->second.untilMs;
}

size_t AuthThrottle::Table::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

void AuthThrottle::Table::makeRoom(uint64_t nowMs) {
  for (auto it = entries_.begin(); it != entries_.end();)
    it = nowMs > it->second.untilMs + 2 * policy_.capMs ? entries_.erase(it)
                                                        : std::next(it);
  if (entries_.size() >= policy_.maxRemembered)
    entries_.erase(std::min_element(
        entries_.begin(), entries_.end(), [](const auto &a, const auto &b) {
          return a.second.untilMs < b.second.untilMs;
        }));
}

void AuthThrottle::Table::fail(const std::string &name, uint64_t nowMs) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.size() >= policy_.maxRemembered && !entries_.count(name))
    makeRoom(nowMs);
  Backoff &b = entries_[name];
  if (nowMs > b.untilMs + 2 * policy_.capMs)
    b.failures = 0; // quiet long enough: start over
  uint64_t wait = policy_.firstMs;
  for (uint32_t i = 0; i < b.failures && wait < policy_.capMs; ++i)
    wait *= 2;
  b.failures = std::min<uint32_t>(b.failures + 1, 64);
  b.untilMs = nowMs + std::min(wait, policy_.capMs);
}

} // namespace rc::server
