// Datacenter conditions on one host, for benchmarks: RC_EMULATE_RTT_US adds
// that much round-trip time to every reply, RC_EMULATE_GBPS limits the link
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
  LinkEmulation(int64_t rttUs, double gbps) : rttUs_(rttUs), gbps_(gbps) {}
  bool active() const { return rttUs_ > 0 || gbps_ > 0; }

  // After batch `seq` of `bytes` left: the link is busy for bytes/bandwidth.
  void sent(uint64_t seq, size_t bytes);
  // Before the reply to `seq` (`bytes` long) is used: waits until it could
  // have arrived, one reply after another on the way back. Forgets `seq`
  // and every earlier batch (replies are ordered).
  void deliver(uint64_t seq, size_t bytes);

private:
  using Clock = std::chrono::steady_clock;
  Clock::duration transferTime(size_t bytes) const;
  int64_t rttUs_;
  double gbps_;
  std::map<uint64_t, Clock::time_point> sentAt_;
  // When the way back is free: replies to batches sent together arrive one
  // after another, as read-backs in pieces do on a real link.
  Clock::time_point backFree_{};
};

} // namespace rc::rt

#endif
