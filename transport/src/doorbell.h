// Doorbell: lets rc-server's thread for a same-host (shm) session sleep
// while it waits for the client's next request, instead of polling a core.
//
// When: only once the session has been idle through the poll's spin and
// yield phases (RC_DEV_TRANSPORT_YIELD_US, default 10 ms; keeper.h),
// where it used to poll in 20 us sleeps: an idle session then costs the
// machine nothing. Not between a busy client's requests: sleeping there was
// built first and measured worse
// (docs/design/waiting.md). A
// client such as llama.cpp keeps every core busy between GPU steps, and a
// server thread woken by the ring then waits for a core itself: 25 % of 1B
// decode's tokens per second over shm on the H100.
//
// The doorbell is one 32-bit word in a sealed memory file (memfd) that the
// client creates and hands to the server over the shm handshake socket
// (SCM_RIGHTS). The word is 1 while the server sleeps or is about to, else
// 0; the server sleeps on it with a futex, the client wakes it. No lost
// wake-up: the server sets the word, then looks for work once more before
// it sleeps; the client posts its message, then reads the word (both with
// full fences), so at least one of them sees the other.
#ifndef RC_TRANSPORT_DOORBELL_H
#define RC_TRANSPORT_DOORBELL_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace rc::transport::detail {

class Doorbell {
public:
  // A new doorbell (client side). nullptr with *error if the system
  // refuses (no memfd, no seals).
  static std::unique_ptr<Doorbell> create(std::string *error);
  // Maps the doorbell the peer passed (server side); takes ownership of
  // fd. Refuses anything but a memfd that cannot shrink (a peer must not
  // make the server fault on a truncated mapping).
  static std::unique_ptr<Doorbell> attach(int fd, std::string *error);
  ~Doorbell();
  Doorbell(const Doorbell &) = delete;
  Doorbell &operator=(const Doorbell &) = delete;

  // What to pass to the peer (still owned by this object).
  int fd() const { return fd_; }

  // Sleeper: announce the sleep, look for work once more, then either
  // sleep() or cancelSleep(). sleep() returns when rung, after timeoutUs,
  // or at once if rung since prepareToSleep(); it leaves the word at 0.
  void prepareToSleep();
  void sleep(int64_t timeoutUs);
  void cancelSleep();

  // Ringer: after posting a message; a plain load unless the peer sleeps.
  void ring();

  // Sleeper's record: sleeps, and those that ended by their timeout
  // rather than a ring.
  struct Counts {
    uint64_t sleeps = 0, timeouts = 0;
  };
  Counts counts() const { return {sleeps_.load(), timeouts_.load()}; }

private:
  Doorbell(int fd, std::atomic<uint32_t> *word) : fd_(fd), word_(word) {}
  // Maps the file's first page; takes ownership of fd (closed on failure).
  static std::unique_ptr<Doorbell> mapped(int fd, std::string *error);
  int fd_;
  std::atomic<uint32_t> *word_;
  std::atomic<uint64_t> sleeps_{0}, timeouts_{0};
};

} // namespace rc::transport::detail

#endif
