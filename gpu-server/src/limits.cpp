#include "rc/server/limits.h"

#include <cerrno>
#include <cstdlib>

namespace rc::server {

namespace {
// Reads `name` as a whole number in [min, max] times `unit` into *out;
// leaves *out alone when unset.
template <class T>
bool readEnv(const char *name, uint64_t min, uint64_t max, uint64_t unit,
             T *out, std::string *error) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return true;
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (*end || errno || v[0] == '-' || n < min || n > max) {
    *error = std::string(name) + "='" + v + "' is not a whole number from " +
             std::to_string(min) + " to " + std::to_string(max);
    return false;
  }
  *out = T(n * unit);
  return true;
}
} // namespace

bool ServerLimits::fromEnv(ServerLimits *out, std::string *error) {
  ServerLimits l;
  const uint64_t kib = 1 << 10, mib = 1 << 20, tib = uint64_t(1) << 40;
  // A flatbuffer reply must stay under 2 GiB: 1 GiB of read-back at most.
  bool ok =
      readEnv("RC_SERVER_MAX_PENDING", 1, 4096, 1, &l.maxPending, error) &&
      readEnv("RC_SERVER_HELLO_TIMEOUT_MS", 100, 600000, 1, &l.helloTimeoutMs,
              error) &&
      readEnv("RC_SERVER_PENDING_MESSAGE_KIB", 4, 64 * 1024, kib,
              &l.pendingMessageBytes, error) &&
      readEnv("RC_SERVER_MAX_MESSAGE_MIB", 1, 64 * 1024, mib, &l.messageBytes,
              error) &&
      readEnv("RC_SERVER_MAX_QUEUED_MIB", 1, 1024 * 1024, mib, &l.queuedBytes,
              error) &&
      readEnv("RC_SERVER_MAX_REPLY_MIB", 1, 1024, mib, &l.replyBytes, error) &&
      readEnv("RC_SERVER_SHARED_HOST_MIB", 0, tib / mib, mib,
              &l.sharedHostBytes, error) &&
      readEnv("RC_SERVER_REPLY_TOTAL_MIB", 1, tib / mib, mib,
              &l.replyTotalBytes, error) &&
      readEnv("RC_SERVER_PINNED_TOTAL_MIB", 0, tib / mib, mib,
              &l.pinnedTotalBytes, error);
  if (ok)
    *out = l;
  return ok;
}

bool ByteBudget::take(uint64_t bytes) {
  uint64_t used = used_.load();
  do {
    if (bytes > total_ || used > total_ - bytes)
      return false;
  } while (!used_.compare_exchange_weak(used, used + bytes));
  return true;
}

} // namespace rc::server
