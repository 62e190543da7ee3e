// Stream-ordered memory pools as programs see them: each device's default
// pool, pools the program creates, which pool cudaMallocAsync takes from,
// the attributes and the access other devices have. Nothing is pooled
// (an allocation from any pool is an ordinary one, freed at once:
// runtime_memory.cpp), so the release threshold and reuse flags are kept
// and read back but change nothing, a trim has nothing to return, and the
// reserved bytes of a pool are its used ones: what was allocated from it
// and not freed yet.
#ifndef RC_RT_MEM_POOLS_H
#define RC_RT_MEM_POOLS_H

#include <driver_types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace rc::rt {

class MemPools {
public:
  static MemPools &instance();

  cudaError_t defaultPool(int device, cudaMemPool_t *pool);
  // cudaDeviceGetMemPool / SetMemPool: the pool cudaMallocAsync takes from.
  cudaError_t currentPool(int device, cudaMemPool_t *pool);
  cudaError_t setCurrentPool(int device, cudaMemPool_t pool);
  cudaError_t create(const cudaMemPoolProps *props, cudaMemPool_t *pool);
  cudaError_t destroy(cudaMemPool_t pool);
  // The pool's device; cudaErrorInvalidValue for no pool of ours.
  cudaError_t device(cudaMemPool_t pool, int *device);

  cudaError_t setAttribute(cudaMemPool_t pool, int attr, const void *value);
  cudaError_t getAttribute(cudaMemPool_t pool, int attr, void *value);
  // What a device may do with the pool's memory: its own device always
  // reads and writes; another device what setAccess gave it.
  cudaError_t access(cudaMemPool_t pool, const cudaMemLocation &where,
                     cudaMemAccessFlags *flags);
  cudaError_t setAccess(cudaMemPool_t pool, const cudaMemAccessDesc &desc);

  // An allocation from `pool` (its bytes count as used there) and a free of
  // any pointer (forgotten when it was none of a pool's).
  void allocated(cudaMemPool_t pool, const void *ptr, size_t size);
  void freed(const void *ptr);

private:
  struct Pool {
    int device = 0;
    bool isDefault = false;
    uint64_t releaseThreshold = 0;
    int reuseFollowEvents = 1, reuseOpportunistic = 1, reuseInternal = 1;
    uint64_t used = 0, usedHigh = 0;
    std::map<int, cudaMemAccessFlags> peers; // device -> access
  };
  Pool *poolLocked(cudaMemPool_t pool); // null: none of ours
  cudaError_t deviceCount(int *count);  // connects
  std::mutex mu_;
  std::vector<std::unique_ptr<Pool>> defaults_; // by device
  std::set<Pool *> created_;
  std::map<int, Pool *> current_; // device -> set by cudaDeviceSetMemPool
  std::map<const void *, std::pair<Pool *, size_t>> allocations_;
};

} // namespace rc::rt

#endif
