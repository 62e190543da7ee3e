#include "shared_host.h"
#include "rc/server/errors.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::server {

namespace {
const char kPrefix[] = "rc-host-";

// 128 random bits: another local process cannot guess the name in the
// moment before the client unlinks it. The server's pid in front: a file
// left by a server that was killed is found by the next one.
std::string randomName() {
  std::random_device rd;
  static const char hex[] = "0123456789abcdef";
  std::string name =
      "/" + std::string(kPrefix) + std::to_string(getpid()) + "-";
  for (int i = 0; i < 32; i += 8) {
    uint32_t v = rd();
    for (int j = 0; j < 8; ++j, v >>= 4)
      name += hex[v & 15];
  }
  return name;
}

OpStatus unknownRegion(uint64_t id) {
  return OpStatus::fail(kErrInvalidValue, "no shared host region " +
                                              std::to_string(id) +
                                              " in this session");
}

OpStatus systemError(const std::string &what) {
  return OpStatus::fail(kErrMemoryAllocation,
                        what + ": " + std::strerror(errno));
}
} // namespace

int SharedHost::removeFilesOfDeadServers() {
  int removed = 0;
  DIR *d = opendir("/dev/shm");
  if (!d)
    return 0;
  const size_t prefix = sizeof kPrefix - 1;
  while (dirent *e = readdir(d)) {
    if (std::strncmp(e->d_name, kPrefix, prefix) != 0)
      continue;
    char *end = nullptr;
    long pid = std::strtol(e->d_name + prefix, &end, 10);
    if (pid <= 0 || *end != '-' || pid == getpid() ||
        !(kill(pid_t(pid), 0) == -1 && errno == ESRCH))
      continue;
    std::string path = std::string("/dev/shm/") + e->d_name;
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && st.st_uid == getuid() &&
        unlink(path.c_str()) == 0)
      ++removed;
  }
  closedir(d);
  return removed;
}

SharedHost::~SharedHost() {
  for (auto &[id, r] : regions_)
    unmap(r);
  if (total_)
    total_->give(bytes_);
}

void SharedHost::unmap(const Region &r) {
  r.ctx->hostUnregister(r.base);
  munmap(r.base, r.size);
  shm_unlink(r.name.c_str()); // normally gone already: the client unlinks it
}

OpStatus SharedHost::create(DeviceContext &ctx, uint64_t size, uint64_t *id,
                            std::string *name) {
  if (size == 0)
    return OpStatus::fail(kErrInvalidValue, "a shared host region of 0 bytes");
  if (bytes_ > maxBytes_ || size > maxBytes_ - bytes_)
    return OpStatus::fail(
        kErrMemoryAllocation,
        std::to_string(size) + " bytes more of shared pinned memory would " +
            "pass the session's limit of " + std::to_string(maxBytes_) + " (" +
            std::to_string(bytes_) + " shared; RC_SERVER_SHARED_HOST_MIB)");
  if (total_ && !total_->take(size))
    return OpStatus::fail(kErrMemoryAllocation,
                          std::to_string(size) +
                              " bytes more of shared pinned memory do not " +
                              "fit the server's total for all sessions (" +
                              std::to_string(total_->used()) + " of " +
                              std::to_string(total_->total()) +
                              " bytes in use; RC_SERVER_PINNED_TOTAL_MIB)");
  std::string n = randomName();
  // Owner-only: a client running as another user falls back to copies.
  int fd = shm_open(n.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    OpStatus st = systemError("shm_open " + n);
    if (total_)
      total_->give(size);
    return st;
  }
  // Reserved now, not on first touch: a full /dev/shm (64 MiB in a default
  // container) then fails this call instead of raising SIGBUS in the
  // server when the GPU or the client first writes a page.
  void *p = MAP_FAILED;
  int reserve = posix_fallocate(fd, 0, off_t(size));
  if (reserve == 0)
    p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  else
    errno = reserve;
  OpStatus st =
      p == MAP_FAILED
          ? systemError("reserving " + std::to_string(size) + " bytes for " + n)
          : OpStatus{};
  close(fd);
  if (st.ok()) {
    st = ctx.hostRegister(static_cast<uint8_t *>(p), size);
    if (!st.ok())
      munmap(p, size);
  }
  if (!st.ok()) {
    shm_unlink(n.c_str());
    if (total_)
      total_->give(size);
    return st;
  }
  *id = nextId_++;
  regions_[*id] = {&ctx, static_cast<uint8_t *>(p), size, n};
  bytes_ += size;
  *name = n;
  return OpStatus::success();
}

OpStatus SharedHost::release(uint64_t id) {
  auto it = regions_.find(id);
  if (it == regions_.end())
    return unknownRegion(id);
  unmap(it->second);
  bytes_ -= it->second.size;
  if (total_)
    total_->give(it->second.size);
  regions_.erase(it);
  return OpStatus::success();
}

OpStatus SharedHost::locate(uint64_t id, uint64_t offset, uint64_t size,
                            uint8_t **host) const {
  auto it = regions_.find(id);
  if (it == regions_.end())
    return unknownRegion(id);
  const Region &r = it->second;
  if (offset > r.size || size > r.size - offset)
    return OpStatus::fail(
        kErrInvalidValue,
        std::to_string(size) + " bytes at offset " + std::to_string(offset) +
            " are not inside shared host region " + std::to_string(id) +
            " of " + std::to_string(r.size) + " bytes");
  *host = r.base + offset;
  return OpStatus::success();
}

} // namespace rc::server
