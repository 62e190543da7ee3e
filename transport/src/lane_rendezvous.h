// How a tcp connection's lanes (lanes.h) come up. The server's Accept offers
// a port and a 128-bit token (frame.h, Hello); the client dials that port
// once per lane and direction and introduces each socket with the token.
// Lanes are an optimisation: whatever fails here leaves the connection
// without them, writing over the connection itself.
#ifndef RC_TRANSPORT_LANE_RENDEZVOUS_H
#define RC_TRANSPORT_LANE_RENDEZVOUS_H

#include "frame.h"
#include "lanes.h"

#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

namespace rc::transport::detail {

// What each dialed socket sends first.
struct LaneIntro {
  uint8_t token[16];
  uint8_t direction; // kClientWrites or kServerWrites
  uint8_t index;     // 0 .. width-1 within its direction
  uint16_t reserved;
};
static_assert(sizeof(LaneIntro) == 20, "lane intro is 20 bytes");
constexpr uint8_t kClientWrites = 0, kServerWrites = 1;

// Server side: a listening socket for one connection's lanes.
class LaneOffer {
public:
  // Listens on `ip` (any port) for `width` lanes each way.
  static std::unique_ptr<LaneOffer> open(const std::string &ip, int width,
                                         std::string *error);
  ~LaneOffer();
  LaneOffer(const LaneOffer &) = delete;
  LaneOffer &operator=(const LaneOffer &) = delete;

  uint16_t port() const { return port_; }
  const LaneToken &token() const { return token_; }
  int width() const { return width_; }

  // Takes the client's sockets until all 2 x width came with the token;
  // nullptr with *error at the deadline or once `stop` is set. Sockets with
  // a wrong token, or that say nothing, are closed.
  std::unique_ptr<Lanes> collect(std::chrono::steady_clock::time_point deadline,
                                 const std::atomic<bool> &stop,
                                 std::shared_ptr<LaneRegions> regions,
                                 std::string *error);

private:
  LaneOffer(int fd, uint16_t port, int width);
  int fd_;
  uint16_t port_;
  int width_;
  LaneToken token_;
};

// Client side: dials `server` (the offer's address and port) for `width`
// lanes each way.
std::unique_ptr<Lanes> dialLanes(const sockaddr_in &server,
                                 const LaneToken &token, int width,
                                 std::chrono::steady_clock::time_point deadline,
                                 std::shared_ptr<LaneRegions> regions,
                                 std::string *error);

} // namespace rc::transport::detail

#endif
