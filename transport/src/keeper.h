// Timing knobs and the process-wide keep-alive thread. The thread visits
// every live connection a few times a second so that keep-alive frames go
// out and provider progress happens even while the owner thread is busy
// elsewhere (e.g. the server waiting on the GPU). A second thread visits
// shm connections to release a region lock a dead peer holds
// (shm_regions.h).
#ifndef RC_TRANSPORT_KEEPER_H
#define RC_TRANSPORT_KEEPER_H

#include <cstdint>

namespace rc::transport::detail {

class FabricConnection;

struct Tuning {
  int keepaliveMs; // send a keep-alive after this long without sending
  int deadMs;      // peer is gone after this long without hearing from it,
                   // or when a send of it makes no progress this long
  int heldBackMs;  // ... or this long while the peer says it holds back
  // Busy-poll kSpinUs (below), then poll with sched_yield until idle
  // this long; sleep after (a server with a doorbell sleeps on it then).
  int yieldUs;
  int tcpLanes;      // lanes each way a tcp client asks for, a server grants
  bool sealLoopback; // offLoopback() is true for loopback tcp peers too
  uint64_t sealedLaneMin; // sealed writes this large go over the lanes
};
// Defaults, overridable by RC_DEV_TRANSPORT_KEEPALIVE_MS, RC_TRANSPORT_DEAD_MS,
// RC_TRANSPORT_HELD_BACK_MS, RC_DEV_TRANSPORT_YIELD_US, RC_DEV_TCP_LANES,
// RC_DEV_TRANSPORT_SEAL_LOOPBACK, RC_DEV_TRANSPORT_SEALED_LANE_MIN (read
// once, by rc::EnvReader's rule; a refused value leaves its default and is
// named by transport::settingsError()).
const Tuning &tuning();

// A wait busy-polls this long before it yields: a reply is usually
// microseconds away. Spinning through a whole decode token (5000 us)
// measured no different (docs/design/knobs.md).
constexpr int kSpinUs = 100;

void keeperAdd(FabricConnection *c);
void keeperRemove(FabricConnection *c); // after return, never visited again
void rescuerAdd(FabricConnection *c);
void rescuerRemove(FabricConnection *c); // likewise

} // namespace rc::transport::detail

#endif
