#include "core/worker_pool.h"

namespace rc::rt {

WorkerPool::Job::Job(size_t count, std::function<void(size_t)> fn)
    : count_(count), fn_(std::move(fn)),
      done_(new std::atomic<bool>[count ? count : 1]) {
  for (size_t i = 0; i < count; ++i)
    done_[i].store(false, std::memory_order_relaxed);
}

bool WorkerPool::Job::runOne() {
  size_t i = next_.fetch_add(1);
  if (i >= count_)
    return false;
  fn_(i);
  done_[i].store(true, std::memory_order_release);
  finished_.fetch_add(1, std::memory_order_release);
  return true;
}

void WorkerPool::Job::wait(size_t i) {
  while (!done_[i].load(std::memory_order_acquire))
    if (!runOne())
      std::this_thread::yield(); // a helper has it: the item is short
}

void WorkerPool::Job::waitAll() {
  while (finished_.load(std::memory_order_acquire) < count_)
    if (!runOne())
      std::this_thread::yield();
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &t : threads_)
    t.join();
}

std::shared_ptr<WorkerPool::Job>
WorkerPool::start(size_t count, std::function<void(size_t)> fn) {
  auto job = std::make_shared<Job>(count, std::move(fn));
  if (helpers_ == 0 || count < 2)
    return job; // the caller runs it as it waits
  {
    std::lock_guard<std::mutex> lock(mutex_);
    while (threads_.size() < helpers_)
      threads_.emplace_back([this] { work(); });
    // Jobs their callers finished alone leave here (in a forked child no
    // helper is left to take them out).
    while (!jobs_.empty() && jobs_.front()->taken())
      jobs_.pop_front();
    jobs_.push_back(job);
  }
  wake_.notify_all();
  return job;
}

void WorkerPool::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_)
      return;
    std::shared_ptr<Job> job = jobs_.front();
    lock.unlock();
    while (job->runOne()) {
    }
    lock.lock();
    // Every item is taken: the job leaves the queue (unless another helper
    // saw that first).
    if (!jobs_.empty() && jobs_.front() == job)
      jobs_.pop_front();
  }
}

} // namespace rc::rt
