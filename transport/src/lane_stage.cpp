#include "lane_stage.h"

#include "thread_name.h"

#include <utility>

namespace rc::transport::detail {

LaneStage::LaneStage(const char *name, size_t index)
    : thread_(&LaneStage::loop, this) {
  nameThread(thread_, name, index);
}

LaneStage::~LaneStage() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void LaneStage::forgetThread() {
  // Not ours in this process: moved to a thread object nobody destroys.
  new std::thread(std::move(thread_));
}

uint64_t LaneStage::post(Step step) {
  uint64_t number;
  {
    std::lock_guard<std::mutex> g(mu_);
    steps_.push_back(std::move(step));
    number = ++posted_;
  }
  work_.notify_one();
  return number;
}

bool LaneStage::waitFor(uint64_t number, std::string *why) {
  // Steps after a failure are skipped quickly, so this waits for those
  // too: no step still touches the caller's memory once this returns.
  std::unique_lock<std::mutex> g(mu_);
  done_.wait(g, [&] { return finished_ >= number; });
  if (failed_) {
    *why = failure_;
    return false;
  }
  return true;
}

bool LaneStage::drain(std::string *why) {
  uint64_t last;
  {
    std::lock_guard<std::mutex> g(mu_);
    last = posted_;
  }
  return waitFor(last, why);
}

void LaneStage::loop() {
  std::unique_lock<std::mutex> g(mu_);
  for (;;) {
    work_.wait(g, [&] { return stopping_ || !steps_.empty(); });
    if (steps_.empty())
      return; // stopping, and nothing left
    Step step = std::move(steps_.front());
    steps_.pop_front();
    bool skip = failed_;
    g.unlock();
    std::string why;
    bool ok = skip || step(&why);
    g.lock();
    if (!ok && !failed_) {
      failed_ = true;
      failure_ = why.empty() ? "a lane step failed" : why;
    }
    ++finished_;
    done_.notify_all();
  }
}

} // namespace rc::transport::detail
