#include "keeper.h"

#include "connection.h"
#include "env_int.h"

#include <pthread.h>

#include <mutex>
#include <set>
#include <thread>

namespace rc::transport::detail {

namespace {
// Leaked on purpose: the detached thread may outlive static destructors.
struct Keeper {
  std::mutex mu;
  std::set<FabricConnection *> conns;
  bool running = false;
};

Keeper &keeper() {
  static Keeper *k = [] {
    auto *k = new Keeper();
    // A forked child inherits neither the thread nor a usable lock state:
    // hold the lock across fork() and start afresh in the child.
    pthread_atfork([] { keeper().mu.lock(); }, [] { keeper().mu.unlock(); },
                   [] {
                     Keeper &kk = keeper();
                     kk.running = false;
                     kk.conns.clear();
                     kk.mu.unlock();
                   });
    return k;
  }();
  return *k;
}

void keeperLoop() {
  Keeper &k = keeper();
  const int tickMs = 100;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(tickMs));
    std::lock_guard<std::mutex> g(k.mu);
    for (FabricConnection *c : k.conns) {
      c->rescueFromDeadPeer();
      c->keeperTick(); // try_lock inside: never blocks on a busy owner
    }
  }
}
} // namespace

const Tuning &tuning() {
  // A spin of 0 is valid (no busy-poll: yield at once); the timeouts must
  // stay positive.
  // Yielding polls up to 10 ms: a decode step's reply (1-5 ms of GPU work)
  // is then picked up at once instead of after a sleep, which cost 0.1 ms
  // per token over tcp (docs/transport.md, "Waiting").
  // A server with a doorbell sleeps on it only where it would otherwise
  // sleep in 20 us steps (after the yield phase): sleeping earlier, between
  // a llama.cpp client's decode tokens, cost it 25 % of its 1B t/s in
  // wake-ups that found every core busy (docs/performance.md, Session 15).
  static const Tuning t = [] {
    Tuning k;
    k.keepaliveMs = envIntAtLeast("RC_TRANSPORT_KEEPALIVE_MS", 1, 300);
    k.deadMs = envIntAtLeast("RC_TRANSPORT_DEAD_MS", 1, 2500);
    k.spinUs = envIntAtLeast("RC_TRANSPORT_SPIN_US", 0, 100);
    k.yieldUs = envIntAtLeast("RC_TRANSPORT_YIELD_US", 0, 10000);
    k.doorbellSpinUs =
        envIntAtLeast("RC_TRANSPORT_DOORBELL_SPIN_US", 0, k.yieldUs);
    k.doorbell = envIntAtLeast("RC_TRANSPORT_DOORBELL", 0, 1) != 0;
    return k;
  }();
  return t;
}

void keeperAdd(FabricConnection *c) {
  Keeper &k = keeper();
  std::lock_guard<std::mutex> g(k.mu);
  k.conns.insert(c);
  if (!k.running) {
    k.running = true;
    std::thread(keeperLoop).detach();
  }
}

void keeperRemove(FabricConnection *c) {
  Keeper &k = keeper();
  std::lock_guard<std::mutex> g(k.mu);
  k.conns.erase(c);
}

} // namespace rc::transport::detail
