// Mirrors of managed allocations: mapping, attachment, fencing and the
// dirty bookkeeping (managed_memory.h says what the contract is; the
// SIGSEGV handler is in managed_fault.cpp).
#include "core/managed_memory.h"
#include "rc/command_table.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 // Linux 4.17; older headers lack it
#endif

namespace rc::rt {

ManagedMirrors::Slot ManagedMirrors::slots_[ManagedMirrors::kCapacity];

namespace {
void *pointerAt(uint64_t a) { return reinterpret_cast<void *>(uintptr_t(a)); }
uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }
} // namespace

// Async-signal-safe: atomics and mprotect only.
ManagedMirrors::Fault ManagedMirrors::onFault(uint64_t addr) {
  Fault f;
  for (Slot &s : slots_) {
    uint64_t begin = s.begin.load(std::memory_order_acquire);
    if (!begin || addr < begin || addr >= s.end.load())
      continue;
    f.begin = begin;
    f.requested = s.requested.load();
    uint8_t now = s.access.load();
    if (now == FencedOff) {
      f.action = Fault::Fenced;
      return f;
    }
    f.action = Fault::Retry;
    // Writable: another thread's write opened it after this one faulted.
    // Changing: the runtime or another thread is changing it; the access
    // faults again until the change is done, then finds its outcome.
    if (now != ReadOnly || !s.access.compare_exchange_strong(now, Changing))
      return f;
    if (mprotect(pointerAt(begin), s.end.load() - begin,
                 PROT_READ | PROT_WRITE) != 0) {
      s.access.store(ReadOnly);
      f.action = Fault::NotOurs; // cannot open it: let the fault kill
      return f;
    }
    s.dirty.store(true);
    s.access.store(Writable);
    return f;
  }
  return f;
}

void ManagedMirrors::setAccess(Slot &s, Access to) {
  uint8_t now = s.access.load();
  // A fault handler holds Changing for one mprotect only.
  while (now == Changing || !s.access.compare_exchange_weak(now, Changing)) {
    if (now == Changing)
      sched_yield();
    now = s.access.load();
  }
  uint64_t begin = s.begin.load();
  int prot = to == FencedOff  ? PROT_NONE
             : to == ReadOnly ? PROT_READ
                              : PROT_READ | PROT_WRITE;
  mprotect(pointerAt(begin), s.end.load() - begin, prot);
  s.access.store(to);
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

ManagedMirrors::Slot *ManagedMirrors::containing(uint64_t addr) const {
  for (Slot *s : mine_)
    if (addr >= s->begin.load() && addr < s->end.load())
      return s;
  return nullptr;
}

bool ManagedMirrors::map(uint64_t addr, size_t size, size_t requested,
                         bool attachedToHost, bool *addressTaken,
                         std::string *error) {
  *addressTaken = false;
  Slot *slot = freeSlot();
  if (!slot) {
    *error = "remote-clang serves at most " + std::to_string(kCapacity) +
             " managed allocations at once";
    return false;
  }
  // The pages are a memory file's, mapped twice: at addr for the
  // application, and anywhere, always writable, for the runtime.
  int fd = memfd_create("rc-managed", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, off_t(size)) != 0) {
    *error = std::string("could not create managed memory here: ") +
             std::strerror(errno);
    if (fd >= 0)
      close(fd);
    return false;
  }
  bool fence = fenced_ && !attachedToHost;
  void *want = pointerAt(addr);
  void *got = mmap(want, size, fence ? PROT_NONE : PROT_READ,
                   MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
  int mapErrno = errno;
  void *view = got == MAP_FAILED ? MAP_FAILED
                                 : mmap(nullptr, size, PROT_READ | PROT_WRITE,
                                        MAP_SHARED, fd, 0);
  int viewErrno = errno;
  close(fd); // the mappings keep the file
  if (got == MAP_FAILED || view == MAP_FAILED) {
    *addressTaken = got == MAP_FAILED && mapErrno == EEXIST;
    *error = std::string("could not map managed memory here: ") +
             std::strerror(got == MAP_FAILED ? mapErrno : viewErrno);
    if (got != MAP_FAILED)
      munmap(got, size);
    return false;
  }
  if (got != want) { // a kernel without MAP_FIXED_NOREPLACE took it as a hint
    munmap(got, size);
    munmap(view, size);
    *addressTaken = true;
    return false;
  }
  installHandler();
  slot->dirty.store(false);
  slot->access.store(fence ? FencedOff : ReadOnly);
  slot->hostAttached = attachedToHost;
  slot->hostAttachPending = false;
  slot->requested.store(requested);
  slot->view.store(addrOf(view));
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
  uint64_t size = slot->end.load() - addr;
  slot->begin.store(0, std::memory_order_release);
  munmap(pointerAt(addr), size);
  munmap(pointerAt(slot->view.load()), size);
  if (mine_.empty())
    fenced_ = false;
  return true;
}

void ManagedMirrors::unmapAll() {
  while (!mine_.empty())
    unmap(mine_.back()->begin.load());
}

bool ManagedMirrors::find(const void *p, size_t n, Range *out) const {
  uint64_t a = addrOf(p);
  const Slot *s = containing(a);
  if (!s)
    return false;
  uint64_t begin = s->begin.load(), end = s->end.load();
  if (n > end - a)
    return false;
  *out = {begin, size_t(end - begin)};
  return true;
}

void ManagedMirrors::attachToHost(uint64_t addr) {
  Slot *s = mine(addr);
  if (!s || s->hostAttached)
    return;
  if (s->access.load() == FencedOff) {
    s->hostAttachPending = true;
    return;
  }
  s->hostAttached = true;
}

void ManagedMirrors::attachToDevice(uint64_t addr) {
  Slot *s = mine(addr);
  if (!s)
    return;
  s->hostAttachPending = false;
  if (!s->hostAttached)
    return;
  s->hostAttached = false;
  if (fenced_)
    setAccess(*s, FencedOff);
}

bool ManagedMirrors::meetsHostAttached(const void *p, size_t n) const {
  uint64_t a = addrOf(p);
  for (const Slot *s : mine_)
    if (s->hostAttached && s->begin.load() < a + n && a < s->end.load())
      return true;
  return false;
}

bool ManagedMirrors::pointsIntoHostAttached(const std::vector<uint8_t> &bytes,
                                            uint64_t *hit) const {
  bool any = std::any_of(mine_.begin(), mine_.end(),
                         [](const Slot *s) { return s->hostAttached; });
  if (!any)
    return false; // the common case: no scan
  for (size_t off = 0; off + 8 <= bytes.size(); off += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + off, 8);
    const Slot *s = containing(word);
    if (s && s->hostAttached) {
      *hit = word;
      return true;
    }
  }
  return false;
}

cudaMemcpyKind ManagedMirrors::copyKind(const void *dst, const void *src,
                                        cudaMemcpyKind kind) const {
  if (mine_.empty() ||
      (kind != cudaMemcpyHostToHost && kind != cudaMemcpyHostToDevice &&
       kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice))
    return kind;
  bool toDevice =
           kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice,
       fromDevice =
           kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (const Slot *s = containing(addrOf(dst)))
    toDevice = !s->hostAttached;
  if (const Slot *s = containing(addrOf(src)))
    fromDevice = !s->hostAttached;
  return toDevice
             ? (fromDevice ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
             : (fromDevice ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
}

bool ManagedMirrors::anyDirty() const {
  for (const Slot *s : mine_)
    if (!s->hostAttached && s->dirty.load())
      return true;
  return false;
}

std::vector<ManagedMirrors::Range> ManagedMirrors::takeDirty() {
  std::vector<Range> out;
  for (Slot *s : mine_) {
    if (s->hostAttached || !s->dirty.load())
      continue;
    // Clean before protected: a write between the two is on writable
    // pages and lands before the caller reads them; one after faults and
    // marks the mirror dirty again.
    s->dirty.store(false);
    if (s->access.load() != FencedOff)
      setAccess(*s, ReadOnly);
    uint64_t begin = s->begin.load();
    out.push_back({begin, size_t(s->end.load() - begin)});
  }
  return out;
}

void *ManagedMirrors::runtimeView(uint64_t addr) const {
  const Slot *s = mine(addr);
  return s ? pointerAt(s->view.load()) : nullptr;
}

bool ManagedMirrors::mayChangeManaged(wire::Command type) {
  const wire::CommandInfo *info = wire::commandInfo(type);
  if (!info)
    return true; // a command this build does not know: assume the worst
  // Host-side state, waits, allocations and uploads (rc/command_table.h).
  if (info->work == wire::GpuWork::None || !info->clientDeviceWork)
    return false;
  switch (type) {
  case wire::Command::MemcpyD2H:  // into the host
  case wire::Command::SymbolRead: // symbols are no managed memory
  case wire::Command::SymbolWrite:
  case wire::Command::EventRecord: // ordering only
  case wire::Command::StreamWaitEvent:
    return false;
  default:
    return true; // kernels, memsets, device copies, library calls
  }
}

void ManagedMirrors::noteDeviceWork() {
  if (ignoreDeviceWork_ || fenced_ || mine_.empty())
    return;
  fenced_ = true;
  for (Slot *s : mine_)
    if (!s->hostAttached)
      setAccess(*s, FencedOff);
}

std::vector<ManagedMirrors::Range> ManagedMirrors::readBackSet() const {
  std::vector<Range> out;
  for (const Slot *s : mine_)
    if (s->access.load() == FencedOff && !s->dirty.load()) {
      uint64_t begin = s->begin.load();
      out.push_back({begin, size_t(s->end.load() - begin)});
    }
  return out;
}

void ManagedMirrors::clearDeviceWork() {
  for (Slot *s : mine_) {
    if (s->access.load() == FencedOff)
      setAccess(*s, s->dirty.load() ? Writable : ReadOnly);
    if (s->hostAttachPending) {
      s->hostAttachPending = false;
      s->hostAttached = true;
    }
  }
  fenced_ = false;
}

void ManagedMirrors::prepareHostWrite(const void *p, size_t n) {
  uint64_t a = addrOf(p);
  for (Slot *s : mine_) {
    if (!s->hostAttached || s->begin.load() >= a + n || a >= s->end.load())
      continue;
    s->dirty.store(true);
    setAccess(*s, Writable);
  }
}

void ManagedMirrors::writeThrough(void *dst, const void *src, size_t n) {
  uint64_t a = addrOf(dst);
  for (const Slot *s : mine_) {
    uint64_t begin = s->begin.load(), end = s->end.load();
    if (begin >= a + n || a >= end)
      continue;
    uint64_t from = std::max(a, begin), to = std::min(a + n, end);
    std::memmove(pointerAt(s->view.load() + (from - begin)),
                 static_cast<const uint8_t *>(src) + (from - a), to - from);
  }
}

} // namespace rc::rt
