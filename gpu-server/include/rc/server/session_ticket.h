// The one session a worker process of rc-server was reserved for
// (--isolation process, docs/server-isolation.md "Fault containment"): the
// supervisor hands the worker a random ticket, who may redeem it and until
// when, and hands the client the same ticket with its redirect. The worker
// opens a session only for a Hello that carries the ticket, from the
// holder it was issued to (the key id the client proved again to the
// worker, or without keys the peer's source, peer_source.h), before it
// lapses, and only once. A ticket taken off the wire is worth nothing to
// anyone else (docs/tenants.md, "Worker tickets").
#ifndef RC_SERVER_SESSION_TICKET_H
#define RC_SERVER_SESSION_TICKET_H

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace rc::server {

class SessionTicket {
public:
  static constexpr size_t kBytes = 16; // 128 random bits
  using Clock = std::chrono::steady_clock;

  struct Terms {
    std::vector<uint8_t> ticket; // kBytes bytes
    std::string holder;          // who may redeem it ("key 'team-a'", ...)
    Clock::time_point lapses;    // not redeemed by then: worthless
  };
  // The ticket this worker honours from now on (any earlier one lapses).
  void expect(Terms terms);
  bool expected() const;
  // Whether `given` (size bytes) is the expected ticket, unused, not
  // lapsed, redeemed by its holder; it is used from then on, by session
  // `sessionId`. Compared in constant time. *why says what failed, and
  // *retry whether the client may get a fresh ticket from the supervisor
  // (a lapsed or replaced one: an honest but slow client), not whether
  // the same one would pass.
  bool redeem(const uint8_t *given, size_t size, const std::string &holder,
              uint64_t sessionId, std::string *why, bool *retry);
  // An unredeemed ticket past its time lapses now: true if it did (the
  // worker is free again).
  bool lapseIfDue(Clock::time_point now);
  bool redeemed() const;
  // The session that redeemed it (0: none yet): the one the worker serves,
  // whatever other connections tried before it.
  uint64_t redeemedBy() const;

private:
  static std::string lapsedText();
  mutable std::mutex mu_;
  Terms terms_;
  std::vector<uint8_t> lapsed_; // the last one that lapsed unredeemed
  bool redeemed_ = false;
  uint64_t redeemedBy_ = 0;
};

} // namespace rc::server

#endif
