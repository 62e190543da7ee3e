// Preloaded (LD_PRELOAD) into yardstick programs that seed their random
// numbers from time(): every call answers the same second, so that the local
// and the remote runs compute on the same data (compat/yardstick.py, a Run's
// fixed_time). Clocks that measure (gettimeofday, clock_gettime) are left
// alone: their numbers are masked instead.
#include <time.h>

time_t time(time_t *out) {
  const time_t fixed = 1700000000; // any second; the same in every run
  if (out)
    *out = fixed;
  return fixed;
}
