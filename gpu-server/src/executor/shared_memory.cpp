#include "executor/shared_memory.h"
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
const char *const kPrefixes[] = {"rc-host-", "rc-ring-"};

// 128 random bits: another local process cannot guess the name in the
// moment before the client unlinks it. The server's pid in front: a file
// left by a server that was killed is found by the next one.
std::string randomName(const std::string &prefix) {
  std::random_device rd;
  static const char hex[] = "0123456789abcdef";
  std::string name = prefix + std::to_string(getpid()) + "-";
  for (int i = 0; i < 32; i += 8) {
    uint32_t v = rd();
    for (int j = 0; j < 8; ++j, v >>= 4)
      name += hex[v & 15];
  }
  return name;
}

OpStatus systemError(const std::string &what) {
  return OpStatus::fail(kErrMemoryAllocation,
                        what + ": " + std::strerror(errno));
}
// The pid in a file name of ours ("rc-host-PID-..."), or 0.
long ownerPid(const char *file) {
  for (const char *prefix : kPrefixes) {
    size_t n = std::strlen(prefix);
    if (std::strncmp(file, prefix, n) != 0)
      continue;
    char *end = nullptr;
    long pid = std::strtol(file + n, &end, 10);
    return pid > 0 && *end == '-' ? pid : 0;
  }
  return 0;
}
} // namespace

int SharedMemory::removeFilesOfDeadServers() {
  int removed = 0;
  DIR *d = opendir("/dev/shm");
  if (!d)
    return 0;
  while (dirent *e = readdir(d)) {
    long pid = ownerPid(e->d_name);
    if (pid <= 0 || pid == getpid() ||
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

OpStatus SharedMemory::create(DeviceContext &ctx, const std::string &prefix,
                              uint64_t size,
                              std::unique_ptr<SharedMemory> *out) {
  if (size == 0)
    return OpStatus::fail(kErrInvalidValue, "a shared memory file of 0 bytes");
  std::string name = randomName(prefix);
  // Owner-only: a client running as another user falls back to copies.
  int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0)
    return systemError("shm_open " + name);
  // Reserved now, not on first touch: a full /dev/shm (64 MiB in a default
  // container) then fails this call instead of raising SIGBUS in the
  // server when the GPU or the client first writes a page.
  void *p = MAP_FAILED;
  int reserve = posix_fallocate(fd, 0, off_t(size));
  if (reserve == 0)
    p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  else
    errno = reserve;
  OpStatus st = p == MAP_FAILED
                    ? systemError("reserving " + std::to_string(size) +
                                  " bytes for " + name)
                    : OpStatus{};
  close(fd);
  if (st.ok()) {
    st = ctx.hostRegister(static_cast<uint8_t *>(p), size);
    if (!st.ok())
      munmap(p, size);
  }
  if (!st.ok()) {
    shm_unlink(name.c_str());
    return st;
  }
  out->reset(new SharedMemory(ctx, static_cast<uint8_t *>(p), size, name));
  return OpStatus::success();
}

SharedMemory::~SharedMemory() {
  ctx_.hostUnregister(base_);
  munmap(base_, size_);
  shm_unlink(name_.c_str()); // normally gone already: the client unlinks it
}

} // namespace rc::server
