// CUDA user objects (cudaUserObjectCreate): a destructor the program's
// resources are freed by once neither the program nor any graph or
// executable graph holds a reference. Graphs live on the client, so the
// references do too: a graph's go with it, an exec takes its graph's at
// instantiation, a clone its original's.
#ifndef RC_RT_USER_OBJECTS_H
#define RC_RT_USER_OBJECTS_H

#include <driver_types.h>

#include <cstdint>
#include <map>
#include <mutex>

namespace rc::rt {

class UserObjects {
public:
  static UserObjects &instance();

  cudaError_t create(uint64_t *object, void *ptr, cudaHostFn_t destroy,
                     unsigned initialRefcount, unsigned flags);
  cudaError_t retain(uint64_t object, unsigned count);
  // The destructor runs on this thread when the last reference goes, after
  // the bookkeeping is done (it must call no CUDA API, as in CUDA).
  cudaError_t release(uint64_t object, unsigned count);
  // A graph's (or an exec's: an owner's) references; `move` takes them
  // from the caller's instead of adding new ones.
  cudaError_t ownerRetain(uint64_t owner, uint64_t object, unsigned count,
                          bool move);
  cudaError_t ownerRelease(uint64_t owner, uint64_t object, unsigned count);
  // The owner is destroyed: its references go.
  void ownerGone(uint64_t owner);
  // `to` (a clone, an exec) holds what `from` holds, as new references.
  void copyReferences(uint64_t from, uint64_t to);

private:
  struct Object {
    void *ptr = nullptr;
    cudaHostFn_t destroy = nullptr;
    uint64_t refs = 0;
  };
  // Drops `count` references of `object` (mu_ held); true when that was the
  // last and *gone is what to destroy.
  bool dropLocked(uint64_t object, uint64_t count, Object *gone);
  std::mutex mu_;
  std::map<uint64_t, Object> objects_;
  std::map<uint64_t, std::map<uint64_t, uint64_t>> owned_; // owner -> refs
  uint64_t next_ = 0x7a0000000; // apart from every other handle
};

} // namespace rc::rt

#endif
