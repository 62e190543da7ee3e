// The socket between rc-server's supervisor and one of its worker
// processes (--isolation process, docs/server-isolation.md "Fault
// containment"). Each message is one short line of text in one datagram
// (SOCK_SEQPACKET, so no framing): the worker says "ready ADDRESS SUMMARY" once
// it listens, the supervisor answers "ticket HEX ID" when it reserves the
// worker for a client (ID: the number the session gets, unique in the
// supervisor's logs and metrics), how long the ticket lives and who may redeem
// it; the worker answers "redeemed" once its client's session opened on it, or
// "lapsed" when nobody did in time (the worker is free again); with
// --metrics the worker sends "metrics JSON" (its session's counters) about
// once a second and when the session ends, with --metrics-listen "totals
// ..." (its sessions' counters summed, a WorkerReport) as often. Either
// side sees the other go as the socket's end.
#ifndef RC_SERVER_WORKER_CHANNEL_H
#define RC_SERVER_WORKER_CHANNEL_H

#include "rc/server/metrics_board.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rc::server {

// The messages, made and read in one place.
std::string readyMessage(const std::string &address,
                         const std::string &summary);
bool parseReadyMessage(const std::string &message, std::string *address,
                       std::string *summary);
// A reservation, as the supervisor hands it to a worker.
struct TicketOrder {
  std::vector<uint8_t> ticket;
  uint64_t sessionId = 0; // the number its session gets
  uint32_t lifeMs = 0;    // it lapses this long after the order
  std::string holder;     // who may redeem it (session_ticket.h)
};
std::string ticketMessage(const TicketOrder &order);
bool parseTicketMessage(const std::string &message, TicketOrder *order);
// The worker's word on its reservation: "redeemed" or "lapsed".
constexpr const char *kRedeemedMessage = "redeemed";
constexpr const char *kLapsedMessage = "lapsed";
std::string metricsMessage(const std::string &sessionJson);
bool parseMetricsMessage(const std::string &message, std::string *sessionJson);
// What a worker reports for its supervisor's GET /metrics
// (--metrics-listen): its board's totals (every session it opened, the
// refused Hellos included), the device memory its sessions hold now and
// its failed authentications. Each report holds all since the worker
// started, so the latest replaces the ones before.
struct WorkerReport {
  SessionTotals totals;
  uint64_t deviceBytes = 0;
  uint64_t authFailures = 0;
};
// "totals opened=1 batches=3 ... closed:goodbye=1 cmd:7=2,NS,B0,...,B12":
// close reasons by their label, commands by their type's number (the
// supervisor and its workers are one executable, so one schema).
std::string totalsMessage(const WorkerReport &report);
bool parseTotalsMessage(const std::string &message, WorkerReport *report);

class WorkerChannel {
public:
  // Takes ownership of `fd`.
  explicit WorkerChannel(int fd) : fd_(fd) {}
  ~WorkerChannel();
  WorkerChannel(const WorkerChannel &) = delete;
  WorkerChannel &operator=(const WorkerChannel &) = delete;

  // A connected pair with close-on-exec set on both: the supervisor keeps
  // the first, clears the flag on the second in the child.
  static bool pair(int fds[2], std::string *error);

  bool send(const std::string &message);
  enum class Got { Message, Nothing, Closed };
  // Waits up to timeoutMs (0: only looks) for one message.
  Got receive(std::string *message, int timeoutMs);
  int fd() const { return fd_; }

private:
  int fd_;
};

} // namespace rc::server

#endif
