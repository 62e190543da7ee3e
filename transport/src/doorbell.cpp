#include "doorbell.h"

#include "sys_error.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace rc::transport::detail {

namespace {
constexpr size_t kBytes = 4096;

// Not FUTEX_PRIVATE: the word is shared between two processes.
long futex(std::atomic<uint32_t> *word, int op, uint32_t value,
           const timespec *timeout) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), op, value,
                 timeout, nullptr, 0);
}

} // namespace

std::unique_ptr<Doorbell> Doorbell::mapped(int fd, std::string *error) {
  void *p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    *error = sysError("doorbell: mmap");
    close(fd);
    return nullptr;
  }
  static_assert(std::atomic<uint32_t>::is_always_lock_free,
                "the futex word must be a plain 32-bit word");
  return std::unique_ptr<Doorbell>(
      new Doorbell(fd, static_cast<std::atomic<uint32_t> *>(p)));
}

std::unique_ptr<Doorbell> Doorbell::create(std::string *error) {
  int fd = memfd_create("rc_doorbell", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    *error = sysError("doorbell: memfd_create");
    return nullptr;
  }
  // Sealed at its size: the server that maps it can rely on the page.
  if (ftruncate(fd, kBytes) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    *error = sysError("doorbell: size and seal");
    close(fd);
    return nullptr;
  }
  return mapped(fd, error);
}

std::unique_ptr<Doorbell> Doorbell::attach(int fd, std::string *error) {
  struct stat st{};
  int seals = fcntl(fd, F_GET_SEALS);
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size != off_t(kBytes) || seals < 0 || !(seals & F_SEAL_SHRINK)) {
    *error = "doorbell: the peer passed something other than a sealed " +
             std::to_string(kBytes) + "-byte memory file";
    close(fd);
    return nullptr;
  }
  return mapped(fd, error);
}

Doorbell::~Doorbell() {
  munmap(word_, kBytes);
  close(fd_);
}

void Doorbell::prepareToSleep() { word_->store(1); } // seq_cst: a full fence

void Doorbell::sleep(int64_t timeoutUs) {
  timespec ts{time_t(timeoutUs / 1000000), long(timeoutUs % 1000000) * 1000};
  // Returns at once if the word is no longer 1 (rung, or a peer that
  // scribbled on it: then this side merely polls).
  bool timedOut = futex(word_, FUTEX_WAIT, 1, &ts) != 0 && errno == ETIMEDOUT;
  word_->store(0, std::memory_order_relaxed);
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  if (timedOut)
    timeouts_.fetch_add(1, std::memory_order_relaxed);
}

void Doorbell::cancelSleep() { word_->store(0, std::memory_order_relaxed); }

void Doorbell::ring() {
  // Orders the message just posted before the load (see the header).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (word_->load(std::memory_order_relaxed) == 1 && word_->exchange(0) == 1)
    futex(word_, FUTEX_WAKE, 1, nullptr);
}

} // namespace rc::transport::detail
