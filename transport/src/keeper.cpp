#include "keeper.h"

#include "connection.h"
#include "rc/env_reader.h"
#include "thread_name.h"

#include <pthread.h>

#include <algorithm>
#include <string>

#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace rc::transport::detail {

namespace {
// A process-wide thread that visits every registered connection every
// 100 ms, and those whose last visit moved data again after 1 ms (a peer
// streaming to an owner that is busy elsewhere). Leaked on purpose: the
// detached thread may outlive static destructors.
struct Visitor {
  // Routine: every connection, every 100 ms; Quick: one whose last visit
  // moved data. Returns whether the visit moved anything.
  enum class Pass { Routine, Quick };
  using Visit = bool (*)(FabricConnection *, Pass);
  Visitor(const char *name, Visit visit) : name(name), visit(visit) {}
  const char *name; // its thread's (thread_name.h)
  Visit visit;
  std::mutex mu;
  std::set<FabricConnection *> conns;
  std::set<FabricConnection *> moving; // their last visit moved data
  bool running = false;
};

void visitLoop(Visitor *v) {
  // Soon again while data flows: the kernel holds only a socket buffer's
  // worth (128 KiB by default) for an unread tcp connection and, on the
  // 6.18 kernel of the GPU and CI machines, drops what does not fit, so
  // the sender waits out a retransmission timeout per buffer when the
  // next visit is 100 ms away. Only the connections that moved data come
  // back so soon: the others' owners take their data themselves.
  const auto routineTick = std::chrono::milliseconds(100),
             quickTick = std::chrono::milliseconds(1);
  auto lastRoutine = std::chrono::steady_clock::now();
  bool quick = false;
  for (;;) {
    std::this_thread::sleep_for(quick ? quickTick : routineTick);
    std::lock_guard<std::mutex> g(v->mu);
    auto now = std::chrono::steady_clock::now();
    std::set<FabricConnection *> moved;
    if (now - lastRoutine >= routineTick) {
      lastRoutine = now;
      for (FabricConnection *c : v->conns)
        if (v->visit(c, Visitor::Pass::Routine))
          moved.insert(c);
    } else {
      for (FabricConnection *c : v->moving)
        if (v->visit(c, Visitor::Pass::Quick))
          moved.insert(c);
    }
    v->moving.swap(moved);
    quick = !v->moving.empty();
  }
}

// A forked child inherits neither the threads nor a usable lock state:
// the locks are held across fork() and the child starts afresh. The list
// and its lock are leaked like the visitors: a connection closed by an exit
// handler (the runtime's) may create a visitor after static destructors
// ran.
Visitor *makeVisitor(const char *name, Visitor::Visit visit) {
  auto *v = new Visitor(name, visit);
  static auto *registering = new std::mutex;
  static auto *all = new std::vector<Visitor *>;
  std::lock_guard<std::mutex> g(*registering);
  all->push_back(v);
  if (all->size() == 1)
    pthread_atfork(
        [] {
          for (Visitor *x : *all)
            x->mu.lock();
        },
        [] {
          for (Visitor *x : *all)
            x->mu.unlock();
        },
        [] {
          for (Visitor *x : *all) {
            x->running = false;
            x->conns.clear();
            x->moving.clear();
            x->mu.unlock();
          }
        });
  return v;
}

// The keep-alive thread: progress and keep-alives for owners that are
// busy elsewhere (try_lock inside: it never waits for a busy owner).
Visitor &keeper() {
  static Visitor *k =
      makeVisitor("rc-keeper", [](FabricConnection *c, Visitor::Pass p) {
        return c->keeperTick(p == Visitor::Pass::Quick);
      });
  return *k;
}

// The shm rescuer (shm_regions.h). Not the keep-alive thread: that one
// can itself be the thread stuck on a dead peer's lock (its progress pass
// found it taken), so this one never calls into the provider.
Visitor &rescuer() {
  static Visitor *r =
      makeVisitor("rc-rescuer", [](FabricConnection *c, Visitor::Pass) {
        c->rescueFromDeadPeer();
        return false;
      });
  return *r;
}

void add(Visitor &v, FabricConnection *c) {
  std::lock_guard<std::mutex> g(v.mu);
  v.conns.insert(c);
  if (!v.running) {
    v.running = true;
    std::thread visitor(visitLoop, &v);
    nameThread(visitor, v.name);
    visitor.detach();
  }
}

void remove(Visitor &v, FabricConnection *c) {
  std::lock_guard<std::mutex> g(v.mu);
  v.conns.erase(c);
  v.moving.erase(c);
}
} // namespace

namespace {
struct TuningRead {
  Tuning tuning;
  std::string error;
};

const TuningRead &tuningRead() {
  // The timeouts must stay positive.
  // Yielding polls up to 10 ms: a decode step's reply (1-5 ms of GPU work)
  // is then picked up at once instead of after a sleep, which cost 0.1 ms
  // per token over tcp (docs/transport-internals/waiting.md, "Waiting").
  // A server with a doorbell sleeps on it only where it would otherwise
  // sleep in 20 us steps (after the yield phase): sleeping earlier, between
  // a llama.cpp client's decode tokens, cost it 25 % of its 1B t/s in
  // wake-ups that found every core busy
  // (docs/design/waiting.md).
  static const TuningRead r = [] {
    const uint64_t day = 86400000, tenSeconds = 10000000; // ms, us
    EnvReader env;
    Tuning k;
    k.keepaliveMs =
        int(env.count("RC_DEV_TRANSPORT_KEEPALIVE_MS", 300, 1, day));
    k.deadMs = int(env.count("RC_TRANSPORT_DEAD_MS", 2500, 1, day));
    // A session may be busy on the GPU for minutes while its client
    // streams ahead; a peer that lies about holding back holds only the
    // thread that serves it, and only this long.
    k.heldBackMs = int(env.count("RC_TRANSPORT_HELD_BACK_MS",
                                 std::max(600000, k.deadMs), k.deadMs, day));
    k.yieldUs =
        int(env.count("RC_DEV_TRANSPORT_YIELD_US", 10000, 0, tenSeconds));
    // Eight each way: chosen by measurement (docs/transport.md, "Lanes":
    // 1 GiB pinned copies over loopback, 4 lanes 9.8 / 7.0 GB/s up / down,
    // 8 lanes 15.6 / 8.2).
    k.tcpLanes = int(env.count("RC_DEV_TCP_LANES", 8, 0, 16));
    // Tests and benchmarks: a loopback tcp peer counts as off this host, so
    // a server seals it (docs/transport-internals/connections.md, "Sealing").
    k.sealLoopback = env.onOff("RC_DEV_TRANSPORT_SEAL_LOOPBACK", false);
    // Sealed writes from this size go over the lanes, whose threads seal
    // and open in parallel: from 256 KiB on, a 1B token's 525312 B of
    // logits came back in 163 us instead of 304 on an H200 (clear: 101;
    // docs/design/transport-encryption.md).
    k.sealedLaneMin = env.count("RC_DEV_TRANSPORT_SEALED_LANE_MIN", 256 << 10,
                                65536, 1ull << 40);
    return TuningRead{k, env.error()};
  }();
  return r;
}
} // namespace

const Tuning &tuning() { return tuningRead().tuning; }

void keeperAdd(FabricConnection *c) { add(keeper(), c); }
void keeperRemove(FabricConnection *c) { remove(keeper(), c); }
void rescuerAdd(FabricConnection *c) { add(rescuer(), c); }
void rescuerRemove(FabricConnection *c) { remove(rescuer(), c); }

} // namespace rc::transport::detail

namespace rc::transport {
const std::string &settingsError() { return detail::tuningRead().error; }
} // namespace rc::transport
