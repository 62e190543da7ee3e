// The supervisor's side of a client's handshake under --isolation process
// (docs/server-isolation.md, "Fault containment"): it authenticates the client
// as a session would (the same keys, challenge and back-off), reserves a worker
// process of the pool and answers the Hello with a redirect to that worker
// and the ticket the worker expects. The client then says Hello to the
// worker, which authenticates it again and serves its session. The
// supervisor holds no GPU context and runs no client command.
#ifndef RC_SERVER_FRONT_DOOR_H
#define RC_SERVER_FRONT_DOOR_H

#include "admission/lobby.h"
#include "isolation/worker_pool.h"
#include "rc/auth/key_file.h"
#include "rc/server/auth_throttle.h"
#include "rc/server/limits.h"
#include "rc/server/tenant_quotas.h"
#include "rc/server/thread_set.h"
#include "rc/transport.h"

#include <atomic>
#include <memory>
#include <vector>

namespace rc::server {

class FrontDoor {
public:
  // `tenants` (may be null: no quotas) counts a session of a tenant from
  // its reservation until its worker ends (WorkerPoolOptions::sessionEnded).
  FrontDoor(std::vector<auth::Key> keys, const ServerLimits &limits,
            WorkerPool &pool, TenantLedger *tenants);
  ~FrontDoor(); // drops waiting connections, joins handshakes

  // Takes a new connection: it waits in the lobby for its Hello, then its
  // handshake runs on a thread of its own.
  void serve(std::unique_ptr<transport::Connection> conn);
  uint64_t redirected() const { return redirected_; }
  // For GET /metrics: Hellos refused here (a one-process server counts
  // them as sessions closed "refused"), failed authentications, and
  // connections waiting for their first message now.
  uint64_t refused() const { return refused_; }
  uint64_t authFailures() const { return throttle_.failures(); }
  uint64_t waiting() const { return lobby_->waiting(); }

private:
  void startHandshake(std::unique_ptr<transport::Connection> conn,
                      std::vector<uint8_t> first,
                      Lobby::Clock::time_point arrived);
  void handshake(transport::Connection &conn, std::vector<uint8_t> first,
                 Lobby::Clock::time_point arrived);

  const std::vector<auth::Key> keys_;
  const ServerLimits limits_;
  WorkerPool &pool_;
  TenantLedger *tenants_;
  AuthThrottle throttle_;
  std::atomic<int> handshaking_{0};
  std::atomic<uint64_t> nextId_{1};
  std::atomic<uint64_t> redirected_{0};
  std::atomic<uint64_t> refused_{0};
  ThreadSet handshakes_;
  std::unique_ptr<Lobby> lobby_; // last: its thread starts handshakes
};

} // namespace rc::server

#endif
