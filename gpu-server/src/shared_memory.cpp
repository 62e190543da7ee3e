#include "shared_memory.h"
#include "rc/server/errors.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/mman.h>
#include <unistd.h>

namespace rc::server {

namespace {
// 128 random bits: another local process cannot guess the name in the
// moment before the client unlinks it.
std::string randomName(const std::string &prefix) {
  std::random_device rd;
  static const char hex[] = "0123456789abcdef";
  std::string name = prefix;
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
} // namespace

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
