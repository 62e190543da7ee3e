// What rc-server lets one client make it hold, and the totals over all
// clients together (docs/server.md, "Bounds"). Reaching a bound is an
// error that names it, never a crash or an unbounded wait. Each is
// settable in rc-server's environment (RC_SERVER_*).
#ifndef RC_SERVER_LIMITS_H
#define RC_SERVER_LIMITS_H

#include "rc/env_reader.h"
#include "rc/transport.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace rc::server {

struct ServerLimits {
  // Until a session is established (the transport's handshake, the Hello
  // and whatever authentication follows it): how many connections may be
  // there at once, how long each has, and what it may send.
  int maxPending = 16;                         // RC_SERVER_MAX_PENDING
  int helloTimeoutMs = 5000;                   // RC_SERVER_HELLO_TIMEOUT_MS
  uint64_t pendingMessageBytes = 256ull << 10; // RC_SERVER_PENDING_MESSAGE_KIB
  // Each established session: its largest message, what it may have sent
  // ahead of the server (read no further until the session catches up),
  // the read-back bytes one batch's reply carries, and its pinned memory
  // shared with the client (shm).
  uint64_t messageBytes = 64ull << 20;   // RC_SERVER_MAX_MESSAGE_MIB
  uint64_t queuedBytes = 64ull << 20;    // RC_SERVER_MAX_QUEUED_MIB
  uint64_t replyBytes = 64ull << 20;     // RC_SERVER_MAX_REPLY_MIB
  uint64_t sharedHostBytes = 4ull << 30; // RC_SERVER_SHARED_HOST_MIB
  // All sessions together: read-back bytes in replies being built or sent,
  // and pinned host memory (upload rings and shared regions).
  uint64_t replyTotalBytes = 1ull << 30;   // RC_SERVER_REPLY_TOTAL_MIB
  uint64_t pinnedTotalBytes = 16ull << 30; // RC_SERVER_PINNED_TOTAL_MIB

  // Applies every RC_SERVER_* variable above that is set (rc::EnvReader's
  // rule: a value outside its range is the reader's error). rc-server reads
  // them with the rest of its settings (ServerSettings::fromEnv).
  void read(EnvReader &env);
  // A listener's bounds for clients still in the transport's handshake: as
  // many, as long and as small as for those waiting for their Hello.
  transport::ListenOptions listenOptions() const;
};

// Bytes shared by all sessions: take() refuses what would pass the total,
// so that many clients together stay within what the operator allowed.
class ByteBudget {
public:
  explicit ByteBudget(uint64_t total = UINT64_MAX) : total_(total) {}
  bool take(uint64_t bytes);
  void give(uint64_t bytes) { used_.fetch_sub(bytes); }
  uint64_t total() const { return total_; }
  uint64_t used() const { return used_.load(); }

private:
  uint64_t total_;
  std::atomic<uint64_t> used_{0};
};

// The budgets one ServerCore's sessions share.
struct ServerBudgets {
  explicit ServerBudgets(const ServerLimits &l)
      : reply(l.replyTotalBytes), pinned(l.pinnedTotalBytes) {}
  ByteBudget reply;
  ByteBudget pinned;
};

} // namespace rc::server

#endif
