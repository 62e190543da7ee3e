// The background flusher: device work appended to a batch leaves within
// RC_DEV_BATCH_AGE_US even when the application computes on the host instead
// of calling the runtime (a launch, then host work, then a sync).
//
// It is built to stay out of the application's way. Measured on the H100
// (docs/design/decode-round-trips.md): the earlier flusher, woken at
// every batch's first command and blocking on the runtime lock, cost
// llama.cpp's decode over shm 1.2 points of tokens per second for the 7B shape,
// all of it in slow tokens: its wake-ups landed while llama.cpp's 16 CPU
// threads filled the 16 cores, and a worker preempted at a barrier holds every
// thread for a scheduler slice. Now it is woken only when device work
// enters a batch that had none, sleeps until that work's deadline, and
// never waits for the runtime lock (whoever holds it is inside a call that
// sends the batch or returns soon).
#include "core/runtime.h"

namespace rc::rt {

namespace {
int64_t steadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

void Runtime::armFlusherLocked() {
  if (!opts_.flusherThread || workPendingSinceNs_.load() != 0)
    return;
  workPendingSinceNs_.store(steadyNowNs());
  // A flusher waiting for an earlier deadline re-reads the start time when
  // it wakes; only one without a deadline needs the (futex) wake.
  std::lock_guard<std::mutex> fl(flusherMu_);
  if (flusherIdle_)
    flusherCv_.notify_one();
}

void Runtime::flusherMain() {
  const auto age = std::chrono::microseconds(opts_.batchAgeUs);
  std::unique_lock<std::mutex> fl(flusherMu_);
  while (!stopFlusher_) {
    int64_t since = workPendingSinceNs_.load();
    if (since == 0) {
      flusherIdle_ = true;
      flusherCv_.wait(fl);
      flusherIdle_ = false;
      continue;
    }
    auto due =
        std::chrono::steady_clock::time_point(std::chrono::nanoseconds(since)) +
        age;
    if (std::chrono::steady_clock::now() < due) {
      flusherCv_.wait_until(fl, due);
      continue;
    }
    fl.unlock();
    bool looked = false;
    {
      std::unique_lock<std::mutex> g(mu_, std::try_to_lock);
      if (g.owns_lock()) {
        looked = true;
        // The batch may have left meanwhile and new work started.
        if (workPendingSinceNs_.load() == since && !batch_.empty())
          sendBatchLocked(false, {}, nullptr);
      }
    }
    fl.lock();
    if (!looked && !stopFlusher_)
      flusherCv_.wait_for(fl, age); // the application is inside a call
  }
}

bool Runtime::lockBefore(std::unique_lock<std::mutex> &lock,
                         std::chrono::steady_clock::time_point deadline) {
  if (deadline == std::chrono::steady_clock::time_point::max()) {
    lock.lock();
    return true;
  }
  while (!lock.try_lock()) {
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

bool Runtime::stopFlusher(std::chrono::steady_clock::time_point lockDeadline) {
  {
    std::unique_lock<std::mutex> fl(flusherMu_, std::defer_lock);
    if (!lockBefore(fl, lockDeadline))
      return false;
    stopFlusher_ = true;
  }
  flusherCv_.notify_all();
  if (!flusher_.joinable())
    return true;
  // exit() may run on the flusher itself (a signal handler that calls it);
  // a thread cannot join itself.
  if (flusher_.get_id() == std::this_thread::get_id())
    flusher_.detach();
  else
    flusher_.join();
  return true;
}

} // namespace rc::rt
