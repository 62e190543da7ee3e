// LaneRegions: the memory a peer may write through a connection's lanes
// (lanes.h): the same registrations as its RMA writes (exposeForWrite), so
// a lane write lands exactly where an fi_write under the same key and
// offset would, and nowhere else.
#ifndef RC_TRANSPORT_LANE_REGIONS_H
#define RC_TRANSPORT_LANE_REGIONS_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace rc::transport::detail {

class LaneRegions {
public:
  struct Region {
    uint64_t key;
    uint8_t *begin;
    uint64_t size;
  };

  // The registrations as they are now. Waits until no lane is receiving
  // into one that is gone (its memory may be freed right after), first
  // calling `interrupt` (which shuts the lanes down) if one is.
  void replace(std::vector<Region> regions,
               const std::function<void()> &interrupt);

  // Where `size` bytes at `offset` under `key` go, marked busy until
  // finish(); nullptr when they are not wholly inside one registration.
  uint8_t *start(uint64_t key, uint64_t offset, uint64_t size);
  void finish(uint64_t key);

private:
  bool busyInGone(const std::vector<Region> &next) const;

  std::mutex mu_;
  std::condition_variable idle_;
  std::vector<Region> regions_;
  std::vector<uint64_t> busy_; // one entry per receive in progress
};

} // namespace rc::transport::detail

#endif
