// The advice a program gave about managed memory (cudaMemAdvise), kept by
// byte range on the client for cudaMemRangeGetAttribute(s). Advice changes
// nothing in how host mirrors move (docs/managed-memory.md), but reads
// back as given, as CUDA's does.
#ifndef RC_RT_MANAGED_ADVICE_H
#define RC_RT_MANAGED_ADVICE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace rc::rt {

class ManagedAdvice {
public:
  static ManagedAdvice &instance();

  // cudaMemAdvise, already checked (a cudaMemoryAdvise and a device or
  // cudaCpuDeviceId).
  void advise(uintptr_t start, size_t count, int advice, int device);
  // The range's advice, as CUDA answers a range: read-mostly only when all
  // of it is; the preferred location when all of it agrees, else
  // cudaInvalidDeviceId; the devices every byte is accessed by.
  bool readMostly(uintptr_t start, size_t count);
  int preferredLocation(uintptr_t start, size_t count);
  std::vector<int> accessedBy(uintptr_t start, size_t count);
  // Memory freed: its advice goes (a later allocation starts afresh).
  void forget(uintptr_t start, size_t count);

private:
  struct Advice {
    bool readMostly = false;
    int preferred = -2; // cudaInvalidDeviceId: none
    std::set<int> accessedBy;
  };
  struct Segment {
    uintptr_t end = 0;
    Advice advice;
  };
  // Makes [start, end) exactly a run of segments (gaps filled with no
  // advice) and calls `f` on each; mu_ held.
  void each(uintptr_t start, uintptr_t end,
            const std::function<void(Advice &)> &f);
  std::mutex mu_;
  std::map<uintptr_t, Segment> segments_; // by start, disjoint
};

} // namespace rc::rt

#endif
