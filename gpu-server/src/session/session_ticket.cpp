#include "rc/server/session_ticket.h"

#include <openssl/crypto.h>

namespace rc::server {

void SessionTicket::expect(Terms terms) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!terms_.ticket.empty() && !redeemed_)
    lapsed_ = std::move(terms_.ticket);
  terms_ = std::move(terms);
  redeemed_ = false;
  redeemedBy_ = 0;
}

bool SessionTicket::expected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !terms_.ticket.empty();
}

bool SessionTicket::redeem(const uint8_t *given, size_t size,
                           const std::string &holder, uint64_t sessionId,
                           std::string *why, bool *retry) {
  std::lock_guard<std::mutex> lock(mu_);
  *retry = false;
  auto same = [&](const std::vector<uint8_t> &t) {
    return given && size == t.size() && !t.empty() &&
           CRYPTO_memcmp(given, t.data(), size) == 0;
  };
  if (same(lapsed_)) {
    *retry = true;
    *why = lapsedText();
    return false;
  }
  const std::vector<uint8_t> &ticket = terms_.ticket;
  if (ticket.empty()) {
    *retry = true;
    *why = "this rc-server process serves only a session it was reserved "
           "for, and none is now: connect to the address in RC_SERVER";
    return false;
  }
  if (!same(ticket)) {
    *retry = true;
    *why = "this rc-server process is reserved for another client's session: "
           "connect to the address in RC_SERVER";
    return false;
  }
  if (redeemed_) {
    *why = "this session's ticket was used already: connect to the address "
           "in RC_SERVER for a new session";
    return false;
  }
  // Never consumed by anyone else: the holder still gets its session.
  if (holder != terms_.holder) {
    *why = "this session's ticket was issued to another client: a ticket "
           "serves only the key it was issued to (without keys, the same "
           "local user or host)";
    return false;
  }
  if (Clock::now() >= terms_.lapses) {
    *retry = true;
    *why = lapsedText();
    return false;
  }
  redeemed_ = true;
  redeemedBy_ = sessionId;
  return true;
}

bool SessionTicket::lapseIfDue(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terms_.ticket.empty() || redeemed_ || now < terms_.lapses)
    return false;
  lapsed_ = std::move(terms_.ticket); // still named as such when it comes
  terms_ = Terms{};
  return true;
}

std::string SessionTicket::lapsedText() {
  return "this session's ticket lapsed before it was used: connect to the "
         "address in RC_SERVER for a new one";
}

bool SessionTicket::redeemed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return redeemed_;
}

uint64_t SessionTicket::redeemedBy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return redeemedBy_;
}

} // namespace rc::server
