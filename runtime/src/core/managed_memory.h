// Managed memory on a client without a GPU: each cudaMallocManaged
// allocation is device memory on the server and a mirror here, host pages
// mapped at the same address, so one pointer works in host code and in
// kernels. The two copies are kept coherent under the contract of GPUs
// without concurrent managed access (concurrentManagedAccess = 0): the host
// touches managed memory only while the device is idle.
//
// - Host writes are caught by write protection: a clean mirror is
//   read-only, and the first write to it (a SIGSEGV) marks it dirty and
//   makes it writable. The runtime uploads dirty mirrors before the next
//   command for the device.
// - Device writes reach the host at synchronization: when device work ran
//   since the last download, every mirror is read back.
//
// This class is the bookkeeping and the page protection; the runtime moves
// the data (runtime_managed.cpp). Mutations happen under the runtime's lock;
// the fault handler reads the table lock-free, from any thread.
#ifndef RC_RT_MANAGED_MEMORY_H
#define RC_RT_MANAGED_MEMORY_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rc::rt {

class ManagedMirrors {
public:
  // Mirrors alive at once (a fixed table: the fault handler cannot lock).
  static constexpr size_t kCapacity = 4096;

  struct Range {
    uint64_t addr = 0;
    size_t size = 0;
  };

  ManagedMirrors() = default;
  ~ManagedMirrors();
  ManagedMirrors(const ManagedMirrors &) = delete;
  ManagedMirrors &operator=(const ManagedMirrors &) = delete;

  // Maps zeroed, read-only host pages at [addr, addr + size) (addr page
  // aligned). False with *addressTaken when this process already uses that
  // address (the caller tries another allocation); false with *error for
  // any other failure.
  bool map(uint64_t addr, size_t size, bool *addressTaken, std::string *error);
  // Unmaps the mirror that starts at addr; false if none does.
  bool unmap(uint64_t addr);
  void unmapAll();

  bool empty() const { return mine_.empty(); }
  // The mirror [p, p + n) lies in (n 0: the one p lies in), if any.
  bool find(const void *p, size_t n, Range *out) const;
  // Every mirror that shares a byte with [addr, addr + n).
  std::vector<Range> meeting(uint64_t addr, size_t n) const;

  // Mirrors the host wrote since they were last made clean.
  bool anyDirty() const; // no allocation: asked before every command
  std::vector<Range> dirty() const { return withDirty(true); }
  std::vector<Range> clean() const { return withDirty(false); }
  // The mirror that starts at addr now equals the device's copy: read-only
  // again, so the next host write is seen.
  void markClean(uint64_t addr);
  // The runtime itself is about to write into [p, p + n) (a read-back into
  // a mirror): every mirror it meets becomes writable and dirty. A write
  // by the kernel (recv, RMA) would fail with EFAULT on read-only pages
  // rather than fault.
  void prepareHostWrite(const void *p, size_t n);

  // An upload to [dst, dst + n) is also written into the mirrors it meets,
  // which stay clean: host and device copies change together.
  void writeThrough(void *dst, const void *src, size_t n);

  // Device work was queued since the last download.
  void noteDeviceWork() { deviceWork_ = !empty(); }
  bool deviceWorkPending() const { return deviceWork_; }
  void clearDeviceWork() { deviceWork_ = false; }

  // For the SIGSEGV handler: true when addr lies in a clean mirror, which
  // is now dirty and writable (the faulting write retries and succeeds).
  static bool onWriteFault(uint64_t addr);

private:
  struct Slot {
    std::atomic<uint64_t> begin{0}; // 0: free
    std::atomic<uint64_t> end{0};
    std::atomic<bool> dirty{false};
  };
  std::vector<Range> withDirty(bool dirty) const;
  static void installHandler();
  static Slot *freeSlot(); // of the process's table; null when full
  Slot *mine(uint64_t begin) const;

  // One table for the process (the handler is process-wide); each instance
  // remembers which slots are its own mirrors.
  static Slot slots_[kCapacity];
  std::vector<Slot *> mine_;
  bool deviceWork_ = false;
};

} // namespace rc::rt

#endif
