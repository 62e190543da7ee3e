// LaneStage: a thread that runs the steps a sealed lane's thread hands it,
// one at a time and in the order handed, so that the lane's two kinds of
// work overlap instead of taking turns. The writer seals chunk k+1 while
// the stage sends chunk k; the reader receives chunk k+1 while the stage
// opens chunk k. Each half then runs at its own rate, not at their sum
// (docs/design/transport-encryption.md, "Pipelined lanes").
#ifndef RC_TRANSPORT_LANE_STAGE_H
#define RC_TRANSPORT_LANE_STAGE_H

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace rc::transport::detail {

class LaneStage {
public:
  // One step: true when it did its work, false with *why.
  using Step = std::function<bool(std::string *why)>;

  // The thread is named `name` followed by `index` (thread_name.h).
  LaneStage(const char *name, size_t index);
  ~LaneStage(); // runs the steps already handed, then joins
  LaneStage(const LaneStage &) = delete;
  LaneStage &operator=(const LaneStage &) = delete;

  // Queues `step` and returns its number (1, 2, ...). Once a step failed
  // the ones after it are skipped: the lane ends anyway.
  uint64_t post(Step step);
  // Waits until every step up to `number` ran (or was skipped); false with
  // *why once a step failed (the first failure's reason).
  bool waitFor(uint64_t number, std::string *why);
  // Waits for every step handed so far.
  bool drain(std::string *why);
  // A forked child has no thread to join: the destructor leaves it.
  void forgetThread();

private:
  void loop();

  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<Step> steps_;
  uint64_t posted_ = 0, finished_ = 0;
  bool failed_ = false, stopping_ = false;
  std::string failure_;
  std::thread thread_;
};

} // namespace rc::transport::detail

#endif
