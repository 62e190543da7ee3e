#include "rc/server/thread_set.h"

namespace rc::server {

size_t ThreadSet::running() {
  std::lock_guard<std::mutex> lock(mu_);
  joinFinishedLocked();
  return entries_.size();
}

void ThreadSet::joinAll() {
  std::list<Entry> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.splice(all.end(), entries_);
  }
  // Without the lock: a job may still start another (a lobby's hand-off).
  for (Entry &e : all)
    if (e.thread.joinable())
      e.thread.join();
}

void ThreadSet::joinFinishedLocked() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->done) {
      it->thread.join();
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

} // namespace rc::server
