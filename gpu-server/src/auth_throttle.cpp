#include "rc/server/auth_throttle.h"

#include <algorithm>
#include <chrono>

namespace rc::server {

namespace {
// Hosts remembered at most; forgotten ones (quiet for twice the cap) are
// dropped first, so a flood of addresses cannot grow the map without bound.
constexpr size_t kMaxHosts = 4096;
} // namespace

uint64_t AuthThrottle::nowMs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

void AuthThrottle::fail(Backoff &b, uint64_t firstMs, uint64_t capMs,
                        uint64_t nowMs) {
  if (nowMs > b.untilMs + 2 * capMs)
    b.failures = 0; // quiet long enough: start over
  uint64_t wait = firstMs;
  for (uint32_t i = 0; i < b.failures && wait < capMs; ++i)
    wait *= 2;
  b.failures = std::min<uint32_t>(b.failures + 1, 64);
  b.untilMs = nowMs + std::min(wait, capMs);
}

uint64_t AuthThrottle::waitMs(const std::string &host, uint64_t nowMs) const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t until = global_.untilMs;
  auto it = hosts_.find(host);
  if (it != hosts_.end())
    until = std::max(until, it->second.untilMs);
  return until > nowMs ? until - nowMs : 0;
}

void AuthThrottle::recordFailure(const std::string &host, uint64_t nowMs) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (hosts_.size() >= kMaxHosts && !hosts_.count(host)) {
    for (auto it = hosts_.begin(); it != hosts_.end();)
      it = nowMs > it->second.untilMs + 2 * policy_.hostCapMs ? hosts_.erase(it)
                                                              : std::next(it);
    if (hosts_.size() >= kMaxHosts)
      hosts_.erase(std::min_element(
          hosts_.begin(), hosts_.end(), [](const auto &a, const auto &b) {
            return a.second.untilMs < b.second.untilMs;
          }));
  }
  fail(hosts_[host], policy_.hostFirstMs, policy_.hostCapMs, nowMs);
  fail(global_, policy_.globalFirstMs, policy_.globalCapMs, nowMs);
}

size_t AuthThrottle::hostsRemembered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hosts_.size();
}

void AuthThrottle::recordSuccess(const std::string &host) {
  std::lock_guard<std::mutex> lock(mutex_);
  hosts_.erase(host);
}

} // namespace rc::server
