// Short sleeps that end on time. Linux lets a normal thread's timers fire up
// to its "timer slack" late (50 us by default), so a 20 us sleep in a wait
// loop really takes ~70 us, and a reply that arrives meanwhile waits for it.
#ifndef RC_TRANSPORT_PRECISE_SLEEP_H
#define RC_TRANSPORT_PRECISE_SLEEP_H

#include <chrono>

namespace rc::transport::detail {

// Sleeps `d` with this thread's timer slack lowered to 1 us for the
// duration (restored afterwards: the thread belongs to the application).
void sleepPrecisely(std::chrono::microseconds d);

} // namespace rc::transport::detail

#endif
