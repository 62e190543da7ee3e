#include "lane_regions.h"

#include <algorithm>

namespace rc::transport::detail {

void LaneRegions::replace(std::vector<Region> regions,
                          const std::function<void()> &interrupt) {
  std::unique_lock<std::mutex> g(mu_);
  if (busyInGone(regions)) {
    g.unlock();
    interrupt();
    g.lock();
    idle_.wait(g, [&] { return !busyInGone(regions); });
  }
  regions_ = std::move(regions);
}

bool LaneRegions::busyInGone(const std::vector<Region> &next) const {
  for (uint64_t key : busy_) {
    auto same = [&](const Region &r) { return r.key == key; };
    auto was = std::find_if(regions_.begin(), regions_.end(), same);
    auto stays = std::find_if(next.begin(), next.end(), same);
    if (stays == next.end() || stays->begin != was->begin ||
        stays->size != was->size)
      return true;
  }
  return false;
}

uint8_t *LaneRegions::start(uint64_t key, uint64_t offset, uint64_t size) {
  std::lock_guard<std::mutex> g(mu_);
  for (const Region &r : regions_)
    if (r.key == key) {
      if (offset > r.size || size > r.size - offset)
        return nullptr;
      busy_.push_back(key);
      return r.begin + offset;
    }
  return nullptr;
}

void LaneRegions::finish(uint64_t key) {
  {
    std::lock_guard<std::mutex> g(mu_);
    busy_.erase(std::find(busy_.begin(), busy_.end(), key));
  }
  idle_.notify_all();
}

} // namespace rc::transport::detail
