#include "rc/server/limits.h"

namespace rc::server {

transport::ListenOptions ServerLimits::listenOptions() const {
  transport::ListenOptions listen;
  listen.accepted = {pendingMessageBytes, pendingMessageBytes};
  listen.maxHandshakes = maxPending;
  listen.handshakeMs = helloTimeoutMs;
  return listen;
}

void ServerLimits::read(EnvReader &env) {
  const uint64_t kib = 1 << 10, mib = 1 << 20, tib = uint64_t(1) << 40;
  maxPending = int(env.count("RC_SERVER_MAX_PENDING", maxPending, 1, 4096));
  helloTimeoutMs =
      int(env.count("RC_SERVER_HELLO_TIMEOUT_MS", helloTimeoutMs, 100, 600000));
  pendingMessageBytes = env.count("RC_SERVER_PENDING_MESSAGE_KIB",
                                  pendingMessageBytes, 4, 64 * 1024, kib);
  messageBytes =
      env.count("RC_SERVER_MAX_MESSAGE_MIB", messageBytes, 1, 64 * 1024, mib);
  queuedBytes =
      env.count("RC_SERVER_MAX_QUEUED_MIB", queuedBytes, 1, 1024 * 1024, mib);
  // A flatbuffer reply must stay under 2 GiB: 1 GiB of read-back at most.
  replyBytes = env.count("RC_SERVER_MAX_REPLY_MIB", replyBytes, 1, 1024, mib);
  sharedHostBytes = env.count("RC_SERVER_SHARED_HOST_MIB", sharedHostBytes, 0,
                              tib / mib, mib);
  replyTotalBytes = env.count("RC_SERVER_REPLY_TOTAL_MIB", replyTotalBytes, 1,
                              tib / mib, mib);
  pinnedTotalBytes = env.count("RC_SERVER_PINNED_TOTAL_MIB", pinnedTotalBytes,
                               0, tib / mib, mib);
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
