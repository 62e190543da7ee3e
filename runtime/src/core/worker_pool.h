// Threads that share the client's bulk work on large uploads: hashing their
// chunks for the content cache and copying them into the shm upload ring
// (docs/performance.md, "Model loads and the content cache"). One thread
// copies pages at 6-7 GB/s on the GPU machines; several keep up with the
// GPU's 50 GB/s better.
//
// A job is `count` items run as fn(i). The calling thread helps with its
// own job while it waits, so a job finishes even when every helper is busy
// with another one, and no job waits for a helper to wake up first.
#ifndef RC_RT_WORKER_POOL_H
#define RC_RT_WORKER_POOL_H

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rc::rt {

class WorkerPool {
public:
  class Job {
  public:
    Job(size_t count, std::function<void(size_t)> fn);
    // Runs one item nobody has taken yet; false when none is left.
    bool runOne();
    // Returns once item i is done, running others meanwhile.
    void wait(size_t i);
    // Returns once every item is done.
    void waitAll();
    // Every item has been taken (some may still run).
    bool taken() const { return next_.load() >= count_; }

  private:
    const size_t count_;
    std::function<void(size_t)> fn_;
    std::atomic<size_t> next_{0}, finished_{0};
    std::unique_ptr<std::atomic<bool>[]> done_;
  };

  // `threads` in all, the caller's included: threads - 1 helpers, started
  // at the first job.
  explicit WorkerPool(unsigned threads) : helpers_(threads ? threads - 1 : 0) {}
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  // Hands fn(0..count-1) to the helpers and returns at once: wait on the
  // job before anything fn reads or writes goes away.
  std::shared_ptr<Job> start(size_t count, std::function<void(size_t)> fn);
  // The same, returning when every item is done.
  void run(size_t count, std::function<void(size_t)> fn) {
    start(count, std::move(fn))->waitAll();
  }

private:
  void work();
  const unsigned helpers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

} // namespace rc::rt

#endif
