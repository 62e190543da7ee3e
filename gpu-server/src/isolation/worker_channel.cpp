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

std::string ticketMessage(const TicketOrder &order) {
  return "ticket " + hexBytes(order.ticket.data(), order.ticket.size()) + " " +
         std::to_string(order.sessionId) + " " + std::to_string(order.lifeMs) +
         " " + order.holder;
}

namespace {
// A decimal number of at most 19 digits from `text` at *at, up to the next
// space (which *at then points past).
bool takeNumber(const std::string &text, size_t *at, uint64_t *value) {
  size_t end = text.find(' ', *at);
  if (end == std::string::npos)
    return false;
  std::string digits = text.substr(*at, end - *at);
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *value = std::stoull(digits);
  *at = end + 1;
  return true;
}
} // namespace

bool parseTicketMessage(const std::string &message, TicketOrder *order) {
  size_t space = message.find(' ', 7);
  if (message.rfind("ticket ", 0) != 0 || space == std::string::npos ||
      !parseHexBytes(message.substr(7, space - 7), &order->ticket))
    return false;
  size_t at = space + 1;
  uint64_t life = 0;
  if (!takeNumber(message, &at, &order->sessionId) ||
      !takeNumber(message, &at, &life) || life == 0 || life > UINT32_MAX)
    return false;
  order->lifeMs = uint32_t(life);
  order->holder = message.substr(at);
  return order->sessionId > 0 && !order->holder.empty();
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
