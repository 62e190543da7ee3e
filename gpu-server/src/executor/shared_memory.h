// Host memory the server shares with one client on the same machine: a
// POSIX shared-memory file with an unguessable name, owner-only, its pages
// reserved, mapped here and registered with a device context (CUDA:
// page-locked, reachable by DMA from every device of the session). The
// client maps the same pages by the name and unlinks the file, so no other
// process can open it afterwards; the pages live as long as either mapping.
//
// Used for the pinned blocks of HostShare (shared_host.h) and, over shm, for
// the session's upload ring (upload_ring.h): what the client writes there
// lands in pages of its own session and nowhere else in the server.
#ifndef RC_SERVER_SHARED_MEMORY_H
#define RC_SERVER_SHARED_MEMORY_H

#include "rc/server/backend.h"

#include <memory>
#include <string>

namespace rc::server {

class SharedMemory {
public:
  // `size` bytes registered with `ctx` (which must outlive them), in a file
  // named prefix + this process's pid + "-" + 32 random hex digits
  // ("/rc-host-" or "/rc-ring-").
  static OpStatus create(DeviceContext &ctx, const std::string &prefix,
                         uint64_t size, std::unique_ptr<SharedMemory> *out);
  // Removes the files of rc-servers that are gone (a killed server may have
  // created one its client never opened); how many.
  static int removeFilesOfDeadServers();
  // Unregisters and unmaps; removes the name if the client did not.
  ~SharedMemory();
  SharedMemory(const SharedMemory &) = delete;
  SharedMemory &operator=(const SharedMemory &) = delete;

  uint8_t *base() const { return base_; }
  uint64_t size() const { return size_; }
  const std::string &name() const { return name_; }

private:
  SharedMemory(DeviceContext &ctx, uint8_t *base, uint64_t size,
               std::string name)
      : ctx_(ctx), base_(base), size_(size), name_(std::move(name)) {}
  DeviceContext &ctx_;
  uint8_t *base_;
  uint64_t size_;
  std::string name_;
};

} // namespace rc::server

#endif
