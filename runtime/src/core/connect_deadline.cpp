#include "core/connect_deadline.h"

#include <algorithm>
#include <thread>

namespace rc::rt {

ConnectDeadline::ConnectDeadline(int timeoutMs)
    : end_(Clock::now() + std::chrono::milliseconds(timeoutMs)) {}

int ConnectDeadline::leftMs() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      end_ - Clock::now());
  return int(std::max<int64_t>(left.count(), 1));
}

bool ConnectDeadline::waitToRetry(uint32_t retryMs) {
  auto wait = std::chrono::milliseconds(retryMs);
  if (Clock::now() + wait >= end_)
    return false;
  std::this_thread::sleep_for(wait);
  ++attempts_;
  return true;
}

} // namespace rc::rt
