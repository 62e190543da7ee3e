// Connections whose client has not sent its first message yet. One thread
// looks at all of them in turn, so a peer that connects and then says
// nothing costs a table entry, not a thread: a session thread starts only
// with the client's first message (docs/server-internals/bounds.md, "Bounds").
// Each connection waits at most `timeoutMs` from its arrival; at most
// `maxWaiting` wait at once (a newcomer pushes out the oldest: an honest
// client's first message follows its connect within a round trip, so the
// oldest is the likeliest to be idle).
#ifndef RC_SERVER_LOBBY_H
#define RC_SERVER_LOBBY_H

#include "rc/transport.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rc::server {

class Lobby {
public:
  using Clock = std::chrono::steady_clock;
  // Takes a connection with its first message; `arrived` is when it came
  // to the lobby (the handshake's deadline runs from there).
  using Handoff = std::function<void(std::unique_ptr<transport::Connection>,
                                     std::vector<uint8_t> first,
                                     Clock::time_point arrived)>;
  // `ready()` says whether a hand-off may happen now (false: the message
  // waits in the lobby, its deadline running).
  Lobby(int maxWaiting, int timeoutMs, Handoff handoff,
        std::function<bool()> ready);
  ~Lobby(); // stops the thread and drops whoever still waits

  void admit(std::unique_ptr<transport::Connection> conn);
  // Connections waiting now (those admitted but not yet looked at too).
  size_t waiting() const;

private:
  struct Entry {
    std::unique_ptr<transport::Connection> conn;
    Clock::time_point arrived;
    std::vector<uint8_t> first; // non-empty: received, hand-off waits
    bool received = false;
  };
  void loop();
  // One look at every entry; true if anything happened.
  bool visit();
  void drop(Entry &e, const std::string &why);

  const size_t maxWaiting_;
  const int timeoutMs_;
  Handoff handoff_;
  std::function<bool()> ready_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> table_; // oldest first
  bool stop_ = false;
  std::thread thread_;
};

} // namespace rc::server

#endif
