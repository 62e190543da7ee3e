#include "core/host_memory.h"

#include <iterator>

namespace rc::rt {

namespace {
// The entry of `map` whose [start, start+size) holds a, or end().
template <class Map, class SizeOf>
typename Map::const_iterator holding(const Map &map, uintptr_t a,
                                     SizeOf sizeOf) {
  auto it = map.upper_bound(a);
  if (it == map.begin())
    return map.end();
  --it;
  return a - it->first < sizeOf(it->second) ? it : map.end();
}
} // namespace

void HostMemory::addBlock(const void *p, size_t size, uint64_t region) {
  blocks_[uintptr_t(p)] = Block{size, region};
}

bool HostMemory::removeBlock(const void *p, size_t *size, uint64_t *region) {
  auto it = blocks_.find(uintptr_t(p));
  if (it == blocks_.end())
    return false;
  *size = it->second.size;
  *region = it->second.region;
  blocks_.erase(it);
  return true;
}

bool HostMemory::registerRange(const void *p, size_t size) {
  uintptr_t a = uintptr_t(p);
  auto next = registered_.lower_bound(a);
  if (next != registered_.end() && next->first - a < size)
    return false;
  if (next != registered_.begin() &&
      a - std::prev(next)->first < std::prev(next)->second)
    return false;
  registered_[a] = size;
  return true;
}

bool HostMemory::unregisterRange(const void *p) {
  return registered_.erase(uintptr_t(p)) != 0;
}

bool HostMemory::isPinned(const void *p) const {
  uintptr_t a = uintptr_t(p);
  return holding(blocks_, a, [](const Block &b) { return b.size; }) !=
             blocks_.end() ||
         holding(registered_, a, [](size_t s) { return s; }) !=
             registered_.end();
}

bool HostMemory::sharedRange(const void *p, size_t n, uint64_t *region,
                             uint64_t *offset) const {
  uintptr_t a = uintptr_t(p);
  // One past a block's end holds nothing, but a zero-byte range there is
  // still inside it.
  auto it = blocks_.upper_bound(a);
  if (it == blocks_.begin())
    return false;
  --it;
  const Block &b = it->second;
  if (!b.region || a - it->first > b.size || n > b.size - (a - it->first))
    return false;
  *region = b.region;
  *offset = a - it->first;
  return true;
}

} // namespace rc::rt
