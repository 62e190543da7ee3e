#include "precise_sleep.h"

#include <sys/prctl.h>

#include <thread>

namespace rc::transport::detail {

void sleepPrecisely(std::chrono::microseconds d) {
  // Two extra syscalls (well under a microsecond each) against up to 50 us
  // of oversleep per step.
  int previous = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  bool lowered =
      previous > 1000 && prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0) == 0;
  std::this_thread::sleep_for(d);
  if (lowered)
    prctl(PR_SET_TIMERSLACK, previous, 0, 0, 0);
}

} // namespace rc::transport::detail
