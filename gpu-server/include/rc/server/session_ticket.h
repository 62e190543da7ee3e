// The one session a worker process of rc-server was reserved for
// (--isolation process, docs/server.md "Fault containment"): the
// supervisor hands the worker a random ticket and the client the same
// ticket with its redirect; the worker opens a session only for a Hello
// that carries it, and only once.
#ifndef RC_SERVER_SESSION_TICKET_H
#define RC_SERVER_SESSION_TICKET_H

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace rc::server {

class SessionTicket {
public:
  static constexpr size_t kBytes = 16; // 128 random bits

  // The ticket this worker honours from now on (kBytes bytes).
  void expect(const std::vector<uint8_t> &ticket);
  bool expected() const;
  // Whether `given` (size bytes) is the expected ticket and unused; it is
  // used from then on, by session `sessionId`. Compared in constant time.
  // *why says what failed.
  bool redeem(const uint8_t *given, size_t size, uint64_t sessionId,
              std::string *why);
  bool redeemed() const;
  // The session that redeemed it (0: none yet): the one the worker serves,
  // whatever other connections tried before it.
  uint64_t redeemedBy() const;

private:
  mutable std::mutex mu_;
  std::vector<uint8_t> ticket_;
  bool redeemed_ = false;
  uint64_t redeemedBy_ = 0;
};

} // namespace rc::server

#endif
