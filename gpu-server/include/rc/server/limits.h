// What rc-server lets one client make it hold, and the totals over all
// clients together (docs/server-internals/bounds.md, "Bounds"). Reaching a
// bound is an error that names it, never a crash or an unbounded wait. Each is
// settable in rc-server's environment (RC_SERVER_*).
#ifndef RC_SERVER_LIMITS_H
#define RC_SERVER_LIMITS_H

#include "rc/env_reader.h"
#include "rc/transport.h"

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace rc::server {

struct ServerLimits {
  // Until a session is established (the transport's handshake, the Hello
  // and whatever authentication follows it): how many connections may be
  // there at once, how long each has, and what it may send.
  int maxPending = 16;                         // RC_SERVER_MAX_PENDING
  int helloTimeoutMs = 5000;                   // RC_SERVER_HELLO_TIMEOUT_MS
  uint64_t pendingMessageBytes = 256ull << 10; // RC_SERVER_PENDING_MESSAGE_KIB
  // --isolation process: how long a reservation's ticket lives unredeemed,
  // and how many unredeemed ones a tenant (without keys: a local user or a
  // host) may hold at once, so that none can hoard the workers.
  int ticketMs = 1000;           // RC_DEV_SERVER_TICKET_MS
  int reservationsPerTenant = 2; // RC_SERVER_RESERVATIONS_PER_TENANT
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

// Bytes that many sessions draw from: take() refuses what would pass the
// total, so that clients together stay within what the operator allowed.
// The count is the budget's own, or a counter in shared memory that every
// process of one rc-server charges (rc/server/budget_table.h); `held` then
// counts this process's part, which its supervisor gives back should the
// process end without doing so.
class ByteBudget {
public:
  // `what` and `source` name the budget in a refusal: "the server's pinned
  // memory for all sessions", "RC_SERVER_PINNED_TOTAL_MIB".
  // `ownUse`: what is in use is one tenant's own (a quota), so its
  // refusals may say how much; a budget all tenants share keeps that to
  // the operator (docs/security.md, "Tenants see only their own").
  explicit ByteBudget(uint64_t total = UINT64_MAX, std::string what = "",
                      std::string source = "", bool ownUse = false)
      : what_(std::move(what)), source_(std::move(source)), ownUse_(ownUse),
        ownTotal_(total) {}
  // A budget of a table (rc/server/budget_table.h): its total, use and
  // this holder's share live there; a reload may change the total, and
  // takes after that see the new one.
  ByteBudget(const std::atomic<uint64_t> *total, std::string what,
             std::string source, std::atomic<uint64_t> *used,
             std::atomic<uint64_t> *held, bool ownUse)
      : what_(std::move(what)), source_(std::move(source)), ownUse_(ownUse),
        total_(total), used_(used), held_(held) {}
  ByteBudget(const ByteBudget &) = delete;
  ByteBudget &operator=(const ByteBudget &) = delete;

  bool take(uint64_t bytes);
  void give(uint64_t bytes);
  uint64_t total() const { return total_->load(std::memory_order_relaxed); }
  uint64_t used() const { return used_->load(); }
  // Why `bytes` more were refused: the budget, what is in use (only for
  // `ownUse`), its source.
  std::string refusal(uint64_t bytes) const;

private:
  std::string what_, source_;
  bool ownUse_;
  std::atomic<uint64_t> ownTotal_{UINT64_MAX}, own_{0};
  const std::atomic<uint64_t> *total_ = &ownTotal_;
  std::atomic<uint64_t> *used_ = &own_;
  std::atomic<uint64_t> *held_ = nullptr;
};

// The budgets one kind of memory is charged to at once (the server's total
// for all sessions, and the session's tenant's quota): bytes are taken from
// all of them or from none. Null members are skipped.
class BudgetSet {
public:
  BudgetSet() = default;
  BudgetSet(std::initializer_list<ByteBudget *> budgets);
  // False with *why (the first refusal) when one of them has no room.
  bool take(uint64_t bytes, std::string *why);
  void give(uint64_t bytes);
  bool empty() const { return budgets_.empty(); }

private:
  std::vector<ByteBudget *> budgets_;
};

// Bytes taken from a BudgetSet, given back when the last owner lets go (a
// VMM allocation's memory lives while its handle or any mapping of it
// does: both own it).
class HeldBytes {
public:
  // Takes `bytes` from `budgets`; null with *why when one has no room.
  static std::shared_ptr<const HeldBytes>
  take(BudgetSet budgets, uint64_t bytes, std::string *why);
  HeldBytes(BudgetSet budgets, uint64_t bytes)
      : budgets_(std::move(budgets)), bytes_(bytes) {}
  ~HeldBytes() { budgets_.give(bytes_); }
  HeldBytes(const HeldBytes &) = delete;
  HeldBytes &operator=(const HeldBytes &) = delete;

private:
  BudgetSet budgets_;
  uint64_t bytes_;
};

// A budget's name (its key in a BudgetTable), bound and how a refusal
// names it (ByteBudget's `what` and `source`).
struct BudgetSpec {
  std::string name; // "server/pinned", "tenant/alice/device"
  uint64_t total = UINT64_MAX;
  std::string what, source;
};

// The budgets one ServerCore's sessions share: its own, or with
// --isolation process those every worker of one supervisor shares
// (rc/server/budget_table.h).
struct ServerBudgets {
  // Their names in a BudgetTable, and their specs.
  static constexpr const char *kReplyName = "server/reply";
  static constexpr const char *kPinnedName = "server/pinned";
  static std::vector<BudgetSpec> specs(const ServerLimits &l);
  explicit ServerBudgets(const ServerLimits &l);
  ServerBudgets(std::unique_ptr<ByteBudget> reply,
                std::unique_ptr<ByteBudget> pinned)
      : replyOwned(std::move(reply)), pinnedOwned(std::move(pinned)),
        reply(*replyOwned), pinned(*pinnedOwned) {}
  std::unique_ptr<ByteBudget> replyOwned, pinnedOwned;
  ByteBudget &reply;  // read-back bytes in replies being built or sent
  ByteBudget &pinned; // pinned host memory: upload rings, shared regions
};

} // namespace rc::server

#endif
