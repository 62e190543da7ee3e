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
  ticketMs = int(env.count("RC_DEV_SERVER_TICKET_MS", ticketMs, 100, 600000));
  reservationsPerTenant = int(env.count("RC_SERVER_RESERVATIONS_PER_TENANT",
                                        reservationsPerTenant, 1, 4096));
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

// The count first on take, this process's part first on give: a process
// killed between the two leaves its bytes counted (one allocation leaked)
// and never has them given back twice (an underflow would let every
// session past the bound).
bool ByteBudget::take(uint64_t bytes) {
  uint64_t used = used_->load();
  const uint64_t total = this->total();
  do {
    if (bytes > total || used > total - bytes)
      return false;
  } while (!used_->compare_exchange_weak(used, used + bytes));
  if (held_)
    held_->fetch_add(bytes);
  return true;
}

void ByteBudget::give(uint64_t bytes) {
  if (held_)
    held_->fetch_sub(bytes);
  used_->fetch_sub(bytes);
}

std::string ByteBudget::refusal(uint64_t bytes) const {
  if (!ownUse_) // what others hold is theirs, and the operator's, to know
    return std::to_string(bytes) + " more bytes do not fit " + what_ + " (" +
           std::to_string(total()) + " bytes; " + source_ + ")";
  return std::to_string(bytes) + " more bytes do not fit " + what_ + " (" +
         std::to_string(used()) + " of " + std::to_string(total()) +
         " bytes in use; " + source_ + ")";
}

BudgetSet::BudgetSet(std::initializer_list<ByteBudget *> budgets) {
  for (ByteBudget *b : budgets)
    if (b)
      budgets_.push_back(b);
}

bool BudgetSet::take(uint64_t bytes, std::string *why) {
  for (size_t i = 0; i < budgets_.size(); ++i) {
    if (budgets_[i]->take(bytes))
      continue;
    *why = budgets_[i]->refusal(bytes);
    while (i-- > 0)
      budgets_[i]->give(bytes);
    return false;
  }
  return true;
}

void BudgetSet::give(uint64_t bytes) {
  for (ByteBudget *b : budgets_)
    b->give(bytes);
}

std::shared_ptr<const HeldBytes>
HeldBytes::take(BudgetSet budgets, uint64_t bytes, std::string *why) {
  if (!budgets.take(bytes, why))
    return nullptr;
  return std::make_shared<const HeldBytes>(std::move(budgets), bytes);
}

std::vector<BudgetSpec> ServerBudgets::specs(const ServerLimits &l) {
  return {{kReplyName, l.replyTotalBytes,
           "the server's memory for read-back replies of all sessions",
           "RC_SERVER_REPLY_TOTAL_MIB"},
          {kPinnedName, l.pinnedTotalBytes,
           "the server's pinned memory for all sessions",
           "RC_SERVER_PINNED_TOTAL_MIB"}};
}

namespace {
std::unique_ptr<ByteBudget> ownBudget(const BudgetSpec &spec) {
  return std::make_unique<ByteBudget>(spec.total, spec.what, spec.source);
}
} // namespace

ServerBudgets::ServerBudgets(const ServerLimits &l)
    : ServerBudgets(ownBudget(specs(l)[0]), ownBudget(specs(l)[1])) {}

} // namespace rc::server
