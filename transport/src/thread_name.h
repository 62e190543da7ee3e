// Names the transport's own threads ("rc-lane-w3", "rc-seal-3"), so that
// `top -H`, perf and /proc/PID/task/*/comm say which thread spends the
// time (bench/thread_cpu.py sums CPU time by these names).
#ifndef RC_TRANSPORT_THREAD_NAME_H
#define RC_TRANSPORT_THREAD_NAME_H

#include <cstddef>
#include <thread>

namespace rc::transport::detail {

// `prefix` followed by `index`, cut to the 15 characters Linux keeps.
void nameThread(std::thread &thread, const char *prefix, size_t index);
void nameThread(std::thread &thread, const char *name);

} // namespace rc::transport::detail

#endif
