// Threads that each run one job to its end (a client's session, a
// handshake at the front door), kept so that they can be joined: the
// finished ones when the next starts or when they are counted, all of them
// by joinAll() (and at destruction).
#ifndef RC_SERVER_THREAD_SET_H
#define RC_SERVER_THREAD_SET_H

#include <atomic>
#include <list>
#include <mutex>
#include <thread>
#include <utility>

namespace rc::server {

class ThreadSet {
public:
  ~ThreadSet() { joinAll(); }

  // Runs `job` (movable, called once) on a thread of its own.
  template <class Job> void start(Job job) {
    std::lock_guard<std::mutex> lock(mu_);
    joinFinishedLocked();
    entries_.emplace_back();
    Entry &e = entries_.back(); // stays put: std::list
    e.thread = std::thread([&e, job = std::move(job)]() mutable {
      job();
      e.done = true;
    });
  }
  // Threads not finished yet.
  size_t running();
  void joinAll();

private:
  struct Entry {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void joinFinishedLocked();

  std::mutex mu_;
  std::list<Entry> entries_;
};

} // namespace rc::server

#endif
