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
// - While device work that may change managed memory is outstanding, the
//   mirrors are fenced: no access at all (PROT_NONE). A host access then
//   is the contract broken, and the fault handler ends the program with a
//   line that says so (managed_fault.cpp), as CUDA's segfault would,
//   instead of letting it read stale bytes or write bytes the read-back
//   would lose.
// - Device writes reach the host at synchronization: the fenced mirrors
//   are read back, then opened again.
// - A mirror attached to the host (cudaMemAttachHost) is never fenced: the
//   device does not touch it, so it is neither uploaded nor read back while
//   so attached.
//
// The runtime's own reads and writes of mirrors (uploads, read-backs, a
// copy's bytes written through) go through a second mapping of the same
// pages, always writable, so they never open a fenced mirror to the
// application. This class is the bookkeeping and the page protection; the
// runtime moves the data (runtime_managed.cpp). Mutations happen under the
// runtime's lock; the fault handler reads the table lock-free, from any
// thread.
#ifndef RC_RT_MANAGED_MEMORY_H
#define RC_RT_MANAGED_MEMORY_H

#include "protocol_generated.h"

#include <cuda_runtime_api.h>

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

  // Maps zeroed host pages at [addr, addr + size) (addr page aligned), for
  // an allocation of `requested` bytes: read-only, or fenced when device
  // work is outstanding and it is not attached to the host. False with
  // *addressTaken when this process already uses that address (the caller
  // tries another allocation); false with *error for any other failure.
  bool map(uint64_t addr, size_t size, size_t requested, bool attachedToHost,
           bool *addressTaken, std::string *error);
  // Unmaps the mirror that starts at addr; false if none does.
  bool unmap(uint64_t addr);
  void unmapAll();

  bool empty() const { return mine_.empty(); }
  // The mirror [p, p + n) lies in (n 0: the one p lies in), if any.
  bool find(const void *p, size_t n, Range *out) const;

  // cudaStreamAttachMemAsync for the mirror that starts at addr. To the
  // host: accessible while the device works. When device work is
  // outstanding it may have changed the allocation, so the mirror stays
  // fenced until the next read-back brings it up to date.
  void attachToHost(uint64_t addr);
  // Globally or to a stream: fenced like the others from now on, and
  // uploaded before the next device work if the host wrote it meanwhile.
  void attachToDevice(uint64_t addr);
  // [p, p + n) meets a mirror attached to the host.
  bool meetsHostAttached(const void *p, size_t n) const;
  // Some aligned 8-byte word of `bytes` (a kernel's packed arguments)
  // points into a mirror attached to the host: *hit is that word.
  bool pointsIntoHostAttached(const std::vector<uint8_t> &bytes,
                              uint64_t *hit) const;
  // Where a copy reads or writes managed memory, whatever kind it names:
  // the device's copy, which is the current one while fenced, unless the
  // allocation is attached to the host, which is then host memory. `kind`
  // is returned as it is unless one of the four directions.
  cudaMemcpyKind copyKind(const void *dst, const void *src,
                          cudaMemcpyKind kind) const;

  // Mirrors the host wrote since they were last uploaded, not attached to
  // the host: they go to the device before its next command.
  bool anyDirty() const; // no allocation: asked before every command
  // Those mirrors, each made clean (read-only unless fenced) before it is
  // returned, so a host write from now on marks it dirty again: read them
  // for the upload after this returns, through runtimeView.
  std::vector<Range> takeDirty();
  // The writable second mapping of the mirror that starts at addr.
  void *runtimeView(uint64_t addr) const;

  // Whether a command may change managed memory on the device (a kernel, a
  // memset, a copy into device memory, a library call): it fences the
  // mirrors until the next read-back. A read into the host, an event, a
  // symbol copy, an allocation or an upload does not.
  static bool mayChangeManaged(wire::Command type);
  // Such a command was queued: every mirror not attached to the host is
  // fenced. Ignored between ignoreDeviceWork(true) and (false) (the zeroing
  // memset of a new allocation, whose mirror is zero already).
  void noteDeviceWork();
  void ignoreDeviceWork(bool ignore) { ignoreDeviceWork_ = ignore; }
  bool deviceWorkPending() const { return fenced_; }
  // The fenced mirrors the host did not write: what a read-back brings.
  std::vector<Range> readBackSet() const;
  // The read-back landed: the mirrors are the host's again.
  void clearDeviceWork();

  // The runtime writes [p, p + n) of host memory (a device-to-host copy):
  // a mirror attached to the host that it meets becomes writable and
  // dirty. A write by the kernel (recv, RMA) would fail with EFAULT on
  // read-only pages rather than fault.
  void prepareHostWrite(const void *p, size_t n);
  // An upload to [dst, dst + n) is also written into the mirrors it meets
  // (through their runtime views): host and device copies change together.
  void writeThrough(void *dst, const void *src, size_t n);

  // What the SIGSEGV handler does with a fault at addr (async-signal-safe).
  struct Fault {
    enum Action {
      NotOurs, // outside every mirror: someone else's fault
      Retry,   // a write to a clean mirror, now dirty and writable
      Fenced,  // the contract broken: the device may be using it
    } action = NotOurs;
    uint64_t begin = 0;     // the allocation's mirror
    uint64_t requested = 0; // its size as cudaMallocManaged was asked
  };
  static Fault onFault(uint64_t addr);

private:
  // A mirror's protection, changed by one party at a time: whoever moves
  // it to Changing owns the mprotect until it stores the new state.
  enum Access : uint8_t { ReadOnly, Writable, FencedOff, Changing };
  struct Slot {
    std::atomic<uint64_t> begin{0}; // 0: free
    std::atomic<uint64_t> end{0};
    std::atomic<uint64_t> requested{0};
    std::atomic<uint64_t> view{0};
    std::atomic<uint8_t> access{ReadOnly};
    std::atomic<bool> dirty{false};
    // Under the runtime's lock only (the handler needs neither).
    bool hostAttached = false;
    bool hostAttachPending = false; // attached while fenced: at read-back
  };
  static void installHandler();
  static Slot *freeSlot(); // of the process's table; null when full
  static void setAccess(Slot &s, Access to);
  Slot *mine(uint64_t begin) const;
  Slot *containing(uint64_t addr) const;

  // One table for the process (the handler is process-wide); each instance
  // remembers which slots are its own mirrors.
  static Slot slots_[kCapacity];
  std::vector<Slot *> mine_;
  bool fenced_ = false;
  bool ignoreDeviceWork_ = false;
};

} // namespace rc::rt

#endif
