// cudaMallocHost memory shared with a server on the same machine
// (docs/transport-internals/memory.md, "Pinned memory shared with the server").
// The server creates the region, pins it for the GPU's DMA and names its file;
// this side maps the file and unlinks it, so the pages live exactly as long as
// both mappings. Read-backs into such a block then go from the GPU straight
// into memory the application reads, as with a local GPU. Whatever fails
// here leaves the block private (plain memory, copies as before): sharing
// is an optimisation, never a new way for cudaMallocHost to fail.
//
// The upload ring of a session on the same machine is such a file too: the
// client stores its pieces there instead of writing them by RMA, so the
// server exposes none of its memory to RMA over shm.
#include "core/runtime.h"
#include "core/transfer_engine.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::rt {

namespace {
// Maps `size` bytes of the shared-memory file the server named and removes
// the name, so no other process can open it; null with *why (an errno)
// when it cannot. A file shorter than announced is refused: stores past
// its end would fault.
void *mapServerFile(const char *name, size_t size, int *why) {
  void *p = MAP_FAILED;
  int fd = shm_open(name, O_RDWR, 0);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && uint64_t(st.st_size) < size)
    errno = EINVAL;
  else if (fd >= 0)
    p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  *why = errno;
  if (fd >= 0)
    close(fd);
  shm_unlink(name);
  return p == MAP_FAILED ? nullptr : p;
}
} // namespace

void *Runtime::shareHostLocked(size_t size, uint64_t *sharedRegion) {
  if (!opts_.sharedHostMin || size < opts_.sharedHostMin ||
      ensureConnectedLocked() != cudaSuccess || !conn_->sameHost())
    return nullptr;
  // Alone in its batch, so an error of this round trip is the share's own,
  // not one of earlier work (that stays for the next sync).
  if (sendBatchLocked(false, {}, nullptr) != cudaSuccess)
    return nullptr;
  char name[256] = {};
  size_t nameLength = 0;
  uint64_t region = 0;
  bool filled = false;
  Sink sink;
  sink.index = appendLocked(wire::Command::HostShare,
                            wire::CreateHostShare(batch_.fbb(), size).Union(),
                            {"cudaMallocHost", 0});
  sink.payload = name;
  sink.payloadSize = sizeof name - 1;
  sink.payloadGot = &nameLength;
  sink.addr = &region;
  sink.filled = &filled;
  if (roundTripLocked({sink}, /*sync=*/false) != cudaSuccess || !filled ||
      !region || nameLength == 0)
    return nullptr; // the server said why (its limit, no shared memory)
  int why = 0;
  void *p = mapServerFile(name, size, &why);
  if (!p) {
    std::fprintf(stderr,
                 "remote-clang: cudaMallocHost: cannot map the memory the "
                 "server shares (%s: %s); this block stays private\n",
                 name, std::strerror(why));
    appendLocked(wire::Command::HostUnshare,
                 wire::CreateHostUnshare(batch_.fbb(), region).Union(),
                 {"cudaMallocHost", 0});
    afterAppendLocked();
    return nullptr;
  }
  *sharedRegion = region;
  return p;
}

void TransferEngine::useUploadRingLocked(const wire::RemoteMemory &ring) {
  ring_ = UploadRing();
  ring_.size = ring.size();
  if (!ring.file() || ring.file()->size() == 0) {
    ring_.addr = ring.addr();
    ring_.key = ring.key();
    return;
  }
  const char *name = ring.file()->c_str();
  int why = 0;
  void *p = mapServerFile(name, ring_.size, &why);
  if (!p) {
    std::fprintf(stderr,
                 "remote-clang: cannot map the upload ring the server shares "
                 "(%s: %s); large uploads travel in messages\n",
                 name, std::strerror(why));
    ring_.size = 0;
    return;
  }
  size_t size = ring_.size;
  ring_.mapped.reset(static_cast<uint8_t *>(p),
                     [size](uint8_t *q) { munmap(q, size); });
}

} // namespace rc::rt
