#include "isolation/worker_channel.h"
#include "rc/hex.h"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rc::server {

namespace {
// Far above any line either side sends (an address and a summary).
// A session's metrics with every command type counted stay under 16 KiB.
constexpr size_t kMaxMessage = 64 << 10;
} // namespace

std::string readyMessage(const std::string &address,
                         const std::string &summary) {
  return "ready " + address + " " + summary;
}

bool parseReadyMessage(const std::string &message, std::string *address,
                       std::string *summary) {
  if (message.rfind("ready ", 0) != 0)
    return false;
  size_t space = message.find(' ', 6);
  *address = message.substr(6, space == std::string::npos ? std::string::npos
                                                          : space - 6);
  *summary = space == std::string::npos ? "" : message.substr(space + 1);
  return !address->empty();
}

std::string ticketMessage(const std::vector<uint8_t> &ticket,
                          uint64_t sessionId) {
  return "ticket " + hexBytes(ticket.data(), ticket.size()) + " " +
         std::to_string(sessionId);
}

bool parseTicketMessage(const std::string &message,
                        std::vector<uint8_t> *ticket, uint64_t *sessionId) {
  size_t space = message.find(' ', 7);
  if (message.rfind("ticket ", 0) != 0 || space == std::string::npos ||
      !parseHexBytes(message.substr(7, space - 7), ticket))
    return false;
  std::string id = message.substr(space + 1);
  if (id.empty() || id.size() > 19 ||
      id.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *sessionId = std::stoull(id);
  return *sessionId > 0;
}

std::string metricsMessage(const std::string &sessionJson) {
  return "metrics " + sessionJson;
}

bool parseMetricsMessage(const std::string &message, std::string *sessionJson) {
  if (message.rfind("metrics {", 0) != 0)
    return false;
  *sessionJson = message.substr(8);
  return true;
}

WorkerChannel::~WorkerChannel() {
  if (fd_ >= 0)
    close(fd_);
}

bool WorkerChannel::pair(int fds[2], std::string *error) {
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) == 0)
    return true;
  *error =
      std::string("socketpair for a worker process: ") + std::strerror(errno);
  return false;
}

bool WorkerChannel::send(const std::string &message) {
  ssize_t n;
  do
    n = ::send(fd_, message.data(), message.size(), MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == ssize_t(message.size());
}

WorkerChannel::Got WorkerChannel::receive(std::string *message, int timeoutMs) {
  pollfd p{fd_, POLLIN, 0};
  int r = poll(&p, 1, timeoutMs);
  if (r < 0 && errno == EINTR)
    return Got::Nothing;
  if (r < 0)
    return Got::Closed;
  if (r == 0)
    return Got::Nothing;
  message->resize(kMaxMessage);
  ssize_t n;
  do
    n = recv(fd_, message->data(), message->size(), 0);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return Got::Closed; // 0: the other side closed its end
  message->resize(size_t(n));
  return Got::Message;
}

} // namespace rc::server
