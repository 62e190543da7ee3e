#include "rc/server/session_ticket.h"

#include <openssl/crypto.h>

namespace rc::server {

void SessionTicket::expect(const std::vector<uint8_t> &ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  ticket_ = ticket;
  redeemed_ = false;
  redeemedBy_ = 0;
}

bool SessionTicket::expected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !ticket_.empty();
}

bool SessionTicket::redeem(const uint8_t *given, size_t size,
                           uint64_t sessionId, std::string *why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ticket_.empty()) {
    *why = "this rc-server process serves only a session it was reserved "
           "for, and none is yet: connect to the address in RC_SERVER";
    return false;
  }
  if (!given || size != ticket_.size() ||
      CRYPTO_memcmp(given, ticket_.data(), size) != 0) {
    *why = "this rc-server process is reserved for another client's session: "
           "connect to the address in RC_SERVER";
    return false;
  }
  if (redeemed_) {
    *why = "this session's ticket was used already: connect to the address "
           "in RC_SERVER for a new session";
    return false;
  }
  redeemed_ = true;
  redeemedBy_ = sessionId;
  return true;
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
