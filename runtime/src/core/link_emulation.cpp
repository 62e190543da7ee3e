#include "core/link_emulation.h"

#include <algorithm>
#include <thread>

namespace rc::rt {

namespace {
// Spins: sleep_for overshoots by tens of microseconds, as much as the
// delays being emulated.
void waitUntil(std::chrono::steady_clock::time_point t) {
  while (std::chrono::steady_clock::now() < t)
    std::this_thread::yield();
}
} // namespace

LinkEmulation::Clock::duration LinkEmulation::transferTime(size_t bytes) const {
  if (gbps_ <= 0)
    return Clock::duration::zero();
  double ns = double(bytes) / gbps_; // bytes / (GB/s) = ns
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double, std::nano>(ns));
}

void LinkEmulation::sent(uint64_t seq, size_t bytes) {
  if (!active())
    return;
  Clock::time_point began =
      began_ == Clock::time_point{} ? Clock::now() : began_;
  began_ = {};
  outFree_ = std::max(outFree_, began) + transferTime(bytes);
  waitUntil(outFree_);
  sentAt_[seq] = Clock::now();
}

void LinkEmulation::deliver(uint64_t seq, size_t bytes) {
  if (!active())
    return;
  auto it = sentAt_.find(seq);
  if (it != sentAt_.end()) {
    Clock::time_point start =
        std::max(it->second + std::chrono::microseconds(rttUs_), backFree_);
    backFree_ = start + transferTime(bytes);
    waitUntil(backFree_);
  }
  sentAt_.erase(sentAt_.begin(), sentAt_.upper_bound(seq));
}

} // namespace rc::rt
