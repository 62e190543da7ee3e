// Device 0's context made before its client came, so that a session's
// Hello does not wait for cuCtxCreate (117 of the 407 ms a session took to
// start over shm on an H200; docs/design/session-start.md).
#ifndef RC_SERVER_WAITING_CONTEXT_H
#define RC_SERVER_WAITING_CONTEXT_H

#include "rc/server/backend.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace rc::server {

// A worker process of --isolation process puts one while it waits for its
// reserved session. A server without worker processes keeps one ready: a
// thread of its own makes the next after each take, so that sessions that
// come one after another each find one (sessions that come together: the
// first takes it, the others make their own as before).
class WaitingContext {
public:
  ~WaitingContext(); // stop()
  void put(std::unique_ptr<DeviceContext> ctx);
  // From now on keeps one of `make`'s contexts ready until stop(), made on
  // a thread of its own (`make` leaves it current on no thread). `make`
  // returns null (a lost device, a full GPU) to say none now: the next is
  // tried after the next take.
  void keepOneReady(std::function<std::unique_ptr<DeviceContext>()> make);
  // Joins the maker and destroys the context that waits.
  void stop();
  // The waiting context, current on no thread (activate() it), or null.
  std::unique_ptr<DeviceContext> take();

private:
  void makeWhileWanted(); // the maker thread

  std::mutex mutex_;
  std::condition_variable taken_;
  std::unique_ptr<DeviceContext> ctx_;
  std::function<std::unique_ptr<DeviceContext>()> make_;
  bool tryAgain_ = true; // no failed try since the last take
  bool stopping_ = false;
  std::thread maker_;
};

} // namespace rc::server

#endif
