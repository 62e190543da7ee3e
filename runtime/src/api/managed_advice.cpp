#include "api/managed_advice.h"

#include <driver_types.h>

#include <algorithm>
#include <iterator>

namespace rc::rt {

ManagedAdvice &ManagedAdvice::instance() {
  static ManagedAdvice *kept = new ManagedAdvice; // never destroyed
  return *kept;
}

void ManagedAdvice::each(uintptr_t start, uintptr_t end,
                         const std::function<void(Advice &)> &f) {
  // Split the segment that straddles `at` so a segment starts there.
  auto split = [this](uintptr_t at) {
    auto it = segments_.upper_bound(at);
    if (it == segments_.begin())
      return;
    --it;
    if (it->first < at && it->second.end > at) {
      segments_[at] = {it->second.end, it->second.advice};
      it->second.end = at;
    }
  };
  split(start);
  split(end);
  uintptr_t at = start;
  for (auto it = segments_.lower_bound(start); at < end;) {
    if (it == segments_.end() || it->first > at) {
      uintptr_t gapEnd = it == segments_.end() ? end : std::min(end, it->first);
      it = segments_.emplace(at, Segment{gapEnd, Advice()}).first;
    }
    f(it->second.advice);
    at = it->second.end;
    ++it;
  }
}

void ManagedAdvice::advise(uintptr_t start, size_t count, int advice,
                           int device) {
  std::lock_guard<std::mutex> lock(mu_);
  each(start, start + count, [&](Advice &a) {
    switch (advice) {
    case cudaMemAdviseSetReadMostly:
      a.readMostly = true;
      break;
    case cudaMemAdviseUnsetReadMostly:
      a.readMostly = false;
      break;
    case cudaMemAdviseSetPreferredLocation:
      a.preferred = device;
      break;
    case cudaMemAdviseUnsetPreferredLocation:
      a.preferred = cudaInvalidDeviceId;
      break;
    case cudaMemAdviseSetAccessedBy:
      a.accessedBy.insert(device);
      break;
    case cudaMemAdviseUnsetAccessedBy:
      a.accessedBy.erase(device);
      break;
    default:
      break;
    }
  });
}

bool ManagedAdvice::readMostly(uintptr_t start, size_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  bool all = true;
  each(start, start + count, [&](Advice &a) { all = all && a.readMostly; });
  return all;
}

int ManagedAdvice::preferredLocation(uintptr_t start, size_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  bool first = true;
  int location = cudaInvalidDeviceId;
  each(start, start + count, [&](Advice &a) {
    if (first)
      location = a.preferred;
    else if (location != a.preferred)
      location = cudaInvalidDeviceId;
    first = false;
  });
  return location;
}

std::vector<int> ManagedAdvice::accessedBy(uintptr_t start, size_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  bool first = true;
  std::set<int> all;
  each(start, start + count, [&](Advice &a) {
    if (first) {
      all = a.accessedBy;
    } else {
      std::set<int> both;
      std::set_intersection(all.begin(), all.end(), a.accessedBy.begin(),
                            a.accessedBy.end(),
                            std::inserter(both, both.begin()));
      all = both;
    }
    first = false;
  });
  return {all.begin(), all.end()};
}

void ManagedAdvice::forget(uintptr_t start, size_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  each(start, start + count, [](Advice &) {});
  segments_.erase(segments_.lower_bound(start),
                  segments_.lower_bound(start + count));
}

} // namespace rc::rt
