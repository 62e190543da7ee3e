// Mirrors of managed allocations: mapping, the write-fault handler and the
// dirty bookkeeping (managed_memory.h says what the contract is).
#include "core/managed_memory.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 // Linux 4.17; older headers lack it
#endif

namespace rc::rt {

ManagedMirrors::Slot ManagedMirrors::slots_[ManagedMirrors::kCapacity];

namespace {

struct sigaction previousSegv; // whoever handled SIGSEGV before us

// Hands a fault that is not ours to the handler installed before ours, or
// to the default action (the fault repeats when we return, and kills).
void passOn(int sig, siginfo_t *info, void *context) {
  if (previousSegv.sa_flags & SA_SIGINFO) {
    if (previousSegv.sa_sigaction) {
      previousSegv.sa_sigaction(sig, info, context);
      return;
    }
  } else if (previousSegv.sa_handler != SIG_DFL &&
             previousSegv.sa_handler != SIG_IGN) {
    previousSegv.sa_handler(sig);
    return;
  }
  signal(SIGSEGV, SIG_DFL);
}

void onSegv(int sig, siginfo_t *info, void *context) {
  int savedErrno = errno;
  bool ours = ManagedMirrors::onWriteFault(
      uint64_t(reinterpret_cast<uintptr_t>(info->si_addr)));
  errno = savedErrno;
  if (!ours)
    passOn(sig, info, context);
}

} // namespace

void ManagedMirrors::installHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onSegv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previousSegv);
  });
}

// Async-signal-safe: atomics and mprotect only.
bool ManagedMirrors::onWriteFault(uint64_t addr) {
  for (Slot &s : slots_) {
    uint64_t begin = s.begin.load(std::memory_order_acquire);
    if (!begin || addr < begin || addr >= s.end.load())
      continue;
    // Also when already dirty: another thread's write to the same mirror
    // may have faulted before the first fault made it writable.
    if (mprotect(reinterpret_cast<void *>(uintptr_t(begin)),
                 s.end.load() - begin, PROT_READ | PROT_WRITE) != 0)
      return false;
    s.dirty.store(true);
    return true;
  }
  return false;
}

ManagedMirrors::~ManagedMirrors() { unmapAll(); }

ManagedMirrors::Slot *ManagedMirrors::freeSlot() {
  for (Slot &s : slots_)
    if (s.begin.load() == 0)
      return &s;
  return nullptr;
}

ManagedMirrors::Slot *ManagedMirrors::mine(uint64_t begin) const {
  for (Slot *s : mine_)
    if (s->begin.load() == begin)
      return s;
  return nullptr;
}

bool ManagedMirrors::map(uint64_t addr, size_t size, bool *addressTaken,
                         std::string *error) {
  *addressTaken = false;
  Slot *slot = freeSlot();
  if (!slot) {
    *error = "remote-clang serves at most " + std::to_string(kCapacity) +
             " managed allocations at once";
    return false;
  }
  void *want = reinterpret_cast<void *>(uintptr_t(addr));
  void *got = mmap(want, size, PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == MAP_FAILED) {
    *addressTaken = errno == EEXIST;
    *error = std::string("could not map managed memory here: ") +
             std::strerror(errno);
    return false;
  }
  if (got != want) { // a kernel without MAP_FIXED_NOREPLACE took it as a hint
    munmap(got, size);
    *addressTaken = true;
    return false;
  }
  installHandler();
  slot->dirty.store(false);
  slot->end.store(addr + size);
  slot->begin.store(addr, std::memory_order_release);
  mine_.push_back(slot);
  return true;
}

bool ManagedMirrors::unmap(uint64_t addr) {
  auto it = std::find_if(mine_.begin(), mine_.end(), [addr](const Slot *s) {
    return s->begin.load() == addr;
  });
  if (it == mine_.end())
    return false;
  Slot *slot = *it;
  mine_.erase(it);
  uint64_t end = slot->end.load();
  slot->begin.store(0, std::memory_order_release);
  munmap(reinterpret_cast<void *>(uintptr_t(addr)), end - addr);
  if (mine_.empty())
    deviceWork_ = false;
  return true;
}

void ManagedMirrors::unmapAll() {
  while (!mine_.empty())
    unmap(mine_.back()->begin.load());
}

bool ManagedMirrors::find(const void *p, size_t n, Range *out) const {
  uint64_t a = uint64_t(reinterpret_cast<uintptr_t>(p));
  for (const Slot *s : mine_) {
    uint64_t begin = s->begin.load(), end = s->end.load();
    if (a >= begin && a < end && n <= end - a) {
      *out = {begin, size_t(end - begin)};
      return true;
    }
  }
  return false;
}

std::vector<ManagedMirrors::Range> ManagedMirrors::meeting(uint64_t addr,
                                                           size_t n) const {
  std::vector<Range> out;
  for (const Slot *s : mine_) {
    uint64_t begin = s->begin.load(), end = s->end.load();
    if (begin < addr + n && addr < end)
      out.push_back({begin, size_t(end - begin)});
  }
  return out;
}

bool ManagedMirrors::anyDirty() const {
  for (const Slot *s : mine_)
    if (s->dirty.load())
      return true;
  return false;
}

std::vector<ManagedMirrors::Range> ManagedMirrors::withDirty(bool d) const {
  std::vector<Range> out;
  for (const Slot *s : mine_)
    if (s->dirty.load() == d) {
      uint64_t begin = s->begin.load();
      out.push_back({begin, size_t(s->end.load() - begin)});
    }
  return out;
}

void ManagedMirrors::markClean(uint64_t addr) {
  Slot *s = mine(addr);
  if (!s)
    return;
  s->dirty.store(false);
  mprotect(reinterpret_cast<void *>(uintptr_t(addr)), s->end.load() - addr,
           PROT_READ);
}

void ManagedMirrors::prepareHostWrite(const void *p, size_t n) {
  for (const Range &r : meeting(uint64_t(reinterpret_cast<uintptr_t>(p)), n)) {
    Slot *s = mine(r.addr);
    mprotect(reinterpret_cast<void *>(uintptr_t(r.addr)), r.size,
             PROT_READ | PROT_WRITE);
    s->dirty.store(true);
  }
}

void ManagedMirrors::writeThrough(void *dst, const void *src, size_t n) {
  uint64_t a = uint64_t(reinterpret_cast<uintptr_t>(dst));
  for (const Range &r : meeting(a, n)) {
    uint64_t from = std::max(a, r.addr);
    uint64_t to = std::min(a + n, r.addr + r.size);
    Slot *s = mine(r.addr);
    bool wasDirty = s->dirty.load();
    void *page = reinterpret_cast<void *>(uintptr_t(r.addr));
    mprotect(page, r.size, PROT_READ | PROT_WRITE);
    std::memmove(reinterpret_cast<void *>(uintptr_t(from)),
                 static_cast<const uint8_t *>(src) + (from - a), to - from);
    if (!wasDirty)
      mprotect(page, r.size, PROT_READ);
  }
}

} // namespace rc::rt
