// Input bytes that end exactly at an unreadable page, so that a parser
// reading even one byte past them crashes in any build (ASan finds such
// reads only in its own build).
#ifndef RC_TEST_GUARDED_BYTES_H
#define RC_TEST_GUARDED_BYTES_H

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace rc::test {

class GuardedBytes {
public:
  explicit GuardedBytes(const std::vector<uint8_t> &bytes) {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    pages_ = (bytes.size() + page - 1) / page + 1;
    void *m = mmap(nullptr, pages_ * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      throw std::runtime_error("mmap failed");
    base_ = static_cast<uint8_t *>(m);
    uint8_t *guard = base_ + (pages_ - 1) * page;
    if (mprotect(guard, page, PROT_NONE) != 0)
      throw std::runtime_error("mprotect failed");
    data_ = guard - bytes.size();
    std::memcpy(data_, bytes.data(), bytes.size());
    size_ = bytes.size();
  }
  ~GuardedBytes() { munmap(base_, pages_ * size_t(sysconf(_SC_PAGESIZE))); }
  GuardedBytes(const GuardedBytes &) = delete;
  GuardedBytes &operator=(const GuardedBytes &) = delete;
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  uint8_t *base_ = nullptr, *data_ = nullptr;
  size_t pages_ = 0, size_ = 0;
};

} // namespace rc::test

#endif
