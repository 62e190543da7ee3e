#include "thread_name.h"

#include <pthread.h>

#include <cstdio>

namespace rc::transport::detail {

void nameThread(std::thread &thread, const char *prefix, size_t index) {
  char name[16]; // the kernel's limit, with the terminating zero
  std::snprintf(name, sizeof name, "%s%zu", prefix, index);
  nameThread(thread, name);
}

void nameThread(std::thread &thread, const char *name) {
  char cut[16]; // pthread_setname_np refuses a longer name whole
  std::snprintf(cut, sizeof cut, "%s", name);
  // Only a label: a thread that keeps its inherited name works the same.
  (void)pthread_setname_np(thread.native_handle(), cut);
}

} // namespace rc::transport::detail
