// The client's record of host memory CUDA knows about: cudaMallocHost
// blocks (some of them pages shared with a server on this machine, by
// region id) and cudaHostRegister ranges. Bookkeeping only, under the
// runtime's lock: it answers cudaPointerGetAttributes, refuses double
// registration like cudart, and finds the shared region a read-back can go
// straight into.
#ifndef RC_RT_HOST_MEMORY_H
#define RC_RT_HOST_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>

namespace rc::rt {

class HostMemory {
public:
  // cudaMallocHost blocks; `region` non-zero: memory the server shares.
  void addBlock(const void *p, size_t size, uint64_t region = 0);
  // Forgets the block that starts at p: false if none does; else its size
  // and its shared region (0: private).
  bool removeBlock(const void *p, size_t *size, uint64_t *region);

  // cudaHostRegister ranges: false when [p, p+size) meets one already.
  bool registerRange(const void *p, size_t size);
  bool unregisterRange(const void *p); // false: no range starts at p

  // p lies in a block or a registered range.
  bool isPinned(const void *p) const;
  // [p, p+n) lies in one shared block: its region and p's offset there.
  bool sharedRange(const void *p, size_t n, uint64_t *region,
                   uint64_t *offset) const;

private:
  struct Block {
    size_t size = 0;
    uint64_t region = 0; // 0: private
  };
  std::map<uintptr_t, Block> blocks_;
  std::map<uintptr_t, size_t> registered_;
};

} // namespace rc::rt

#endif
