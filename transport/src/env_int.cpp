#include "env_int.h"

#include <cerrno>
#include <climits>
#include <cstdlib>

namespace rc::transport::detail {

bool parseIntAtLeast(const char *text, int minimum, int *out) {
  if (!text || !*text)
    return false;
  char *end = nullptr;
  errno = 0;
  long n = std::strtol(text, &end, 10);
  if (errno || *end || n < minimum || n > INT_MAX)
    return false;
  *out = int(n);
  return true;
}

int envIntAtLeast(const char *name, int minimum, int fallback) {
  int n;
  return parseIntAtLeast(std::getenv(name), minimum, &n) ? n : fallback;
}

} // namespace rc::transport::detail
