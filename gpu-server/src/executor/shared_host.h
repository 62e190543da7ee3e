// Pinned host memory a session shares with its client on the same machine
// (HostShare; docs/transport-internals/memory.md, "Pinned memory shared with
// the server"): each region is a SharedMemory file (shared_memory.h) the client
// maps. A read-back into the region is then one DMA from the GPU into memory
// the client reads, as with a local GPU: no staging copy, no transport copy.
//
// Regions are the session's own: a command can only name an id this
// session created, and every access is bounds-checked.
#ifndef RC_SERVER_SHARED_HOST_H
#define RC_SERVER_SHARED_HOST_H

#include "executor/shared_memory.h"
#include "rc/server/limits.h"

#include <map>
#include <memory>
#include <string>

namespace rc::server {

class SharedHost {
public:
  // At most `maxBytes` shared at once (pinned memory is the host's, not the
  // GPU's: a client must not be able to lock it all).
  explicit SharedHost(uint64_t maxBytes) : maxBytes_(maxBytes) {}
  // The same bound, and `budgets`: pinned memory all sessions share and
  // the tenant's quota. Before the first create().
  void setLimits(uint64_t maxBytes, BudgetSet budgets) {
    maxBytes_ = maxBytes;
    budgets_ = std::move(budgets);
  }
  ~SharedHost(); // gives its regions' bytes back to the budgets
  SharedHost(const SharedHost &) = delete;
  SharedHost &operator=(const SharedHost &) = delete;

  // A new region of `size` bytes registered with `ctx` (which must outlive
  // it); its id and the file name the client opens.
  OpStatus create(DeviceContext &ctx, uint64_t size, uint64_t *id,
                  std::string *name);
  OpStatus release(uint64_t id);
  // The server's address of [offset, offset+size) of region `id`.
  OpStatus locate(uint64_t id, uint64_t offset, uint64_t size,
                  uint8_t **host) const;

private:
  uint64_t maxBytes_;
  BudgetSet budgets_;
  uint64_t bytes_ = 0;
  uint64_t nextId_ = 1;
  std::map<uint64_t, std::unique_ptr<SharedMemory>> regions_;
};

} // namespace rc::server

#endif
