// What libfabric 1.17's shm provider leaves behind when a process is
// killed, and how the survivors clean it up.
//
// Files: each shm endpoint keeps its region in /dev/shm/PID:UID:INDEX (its
// address without "fi_shm://"), removed when the endpoint closes or when
// the process gets a fatal signal the provider can catch. SIGKILL leaves
// it: 500 killed clients left 499 files (1.97 GB) before the server
// started removing its killed clients' files; a killed server's files are
// removed by the next listener or client on the machine.
//
// Locks: a region is guarded by a process-shared spinlock (smr_region.lock)
// that its owner takes to progress and its peer takes to post into it. A
// process killed while holding one leaves it taken, and the survivor's
// next fi_cq_read or fi_send on that connection spins forever (seen about
// once in 250-500 kill -9 cycles). Our connections are 1:1, so only the
// region's owner and that one peer ever take these locks; once the peer is
// gone, a lock still taken belongs to the dead, or to our own owner thread,
// which the connection's mutex makes the only live user: releasing it is
// safe either way.
#ifndef RC_TRANSPORT_SHM_REGIONS_H
#define RC_TRANSPORT_SHM_REGIONS_H

#include <pthread.h>

#include <cstdint>
#include <string>

namespace rc::transport::detail {

// True once process `pid` has exited (also while an unreaped zombie).
bool processGone(uint32_t pid);

// Removes the region files of process `pid`, which has exited; how many.
int removeShmRegionsOf(uint32_t pid);
// Removes this user's region files whose process is gone; how many.
int removeStaleShmRegions();

// The spinlock of a shm region mapped in this process, found by the
// region's name ("PID:UID:INDEX", or a "fi_shm://" address) in
// /proc/self/maps and checked against the header the provider writes
// (version, owner pid). Invalid when not found.
class RegionLock {
public:
  RegionLock() = default;
  static RegionLock find(const std::string &regionName, uint32_t ownerPid);
  bool valid() const { return lock_ != nullptr; }
  bool taken() const;
  // Releases it (the holder is known to be gone).
  void release();
  // Takes it and raises the region's signal, as a peer does when it
  // posts into the region (the owner's progress takes the lock only when
  // signalled): for tests that die holding it.
  void take();

private:
  pthread_spinlock_t *lock_ = nullptr;
  int32_t *signal_ = nullptr;
};

// The region name in a raw shm address ("fi_shm://PID:UID:INDEX\0").
std::string shmRegionName(const std::string &address);

} // namespace rc::transport::detail

#endif
