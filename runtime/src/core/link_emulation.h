// Datacenter conditions on one host, for benchmarks: RC_DEV_EMULATE_RTT_US adds
// that much round-trip time to every reply, RC_DEV_EMULATE_GBPS limits the link
// to that many gigabytes per second each way (3: 25 GbE, 12: 100 GbE).
//
// It lives in the runtime, not under the transport, because only the runtime
// knows which request a reply answers: a reply is held until `rtt` after
// its own request left, so pipelined batches overlap the delay as they would
// on a real link, while each wait the application makes costs one `rtt`.
#ifndef RC_RT_LINK_EMULATION_H
#define RC_RT_LINK_EMULATION_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>

namespace rc::rt {

class LinkEmulation {
public:
  using Clock = std::chrono::steady_clock;
  LinkEmulation(int64_t rttUs, double gbps) : rttUs_(rttUs), gbps_(gbps) {}
  bool active() const { return rttUs_ > 0 || gbps_ > 0; }

  // Before bytes of the next batch start out: its message, or a ring piece
  // written for it. The first call since the last sent() marks the time.
  void startingOut() {
    if (active() && began_ == Clock::time_point{})
      began_ = Clock::now();
  }
  // After batch `seq` of `bytes` left: the way out carries it in
  // bytes/bandwidth from when it started out, or from when the way is
  // free. The real link's own time is part of that time, not added to it
  // (loopback tcp alone takes 1 s for 4 GB).
  void sent(uint64_t seq, size_t bytes);
  // Before the reply to `seq` (`bytes` long) is used: waits until it could
  // have arrived, one reply after another on the way back. Forgets `seq`
  // and every earlier batch (replies are ordered).
  void deliver(uint64_t seq, size_t bytes);

private:
  Clock::duration transferTime(size_t bytes) const;
  int64_t rttUs_;
  double gbps_;
  std::map<uint64_t, Clock::time_point> sentAt_;
  // When each way is free: batches and replies cross one after another, as
  // an upload's or a read-back's pieces do on a real link.
  Clock::time_point outFree_{}, backFree_{};
  Clock::time_point began_{}; // startingOut's mark; 0: none
};

} // namespace rc::rt

#endif
