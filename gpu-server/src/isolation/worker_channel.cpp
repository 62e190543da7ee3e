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

namespace {
// The report's plain fields, by their names in the message.
struct TotalsField {
  const char *name;
  uint64_t SessionTotals::*field;
};
constexpr TotalsField kTotalsFields[] = {
    {"opened", &SessionTotals::opened},
    {"batches", &SessionTotals::batches},
    {"failed_batches", &SessionTotals::failedBatches},
    {"bytes_in", &SessionTotals::bytesIn},
    {"bytes_out", &SessionTotals::bytesOut},
    {"bytes_out_rma", &SessionTotals::bytesOutRma},
    {"bytes_out_shared", &SessionTotals::bytesOutShared},
    {"bytes_in_shared", &SessionTotals::bytesInShared},
    {"bytes_in_cached", &SessionTotals::bytesInCached}};

bool parseCount(const std::string &digits, uint64_t *value) {
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *value = std::stoull(digits);
  return true;
}

// A close reason's label (closeReasonLabel's): a few lower-case words.
bool isLabel(const std::string &label) {
  return !label.empty() && label.size() <= 32 &&
         label.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") ==
             std::string::npos;
}
} // namespace

std::string totalsMessage(const WorkerReport &r) {
  const SessionTotals &t = r.totals;
  std::string out = "totals";
  for (const TotalsField &f : kTotalsFields)
    out += std::string(" ") + f.name + "=" + std::to_string(t.*f.field);
  out += " device_bytes=" + std::to_string(r.deviceBytes);
  out += " auth_failures=" + std::to_string(r.authFailures);
  for (const auto &[label, n] : t.closedByReason)
    out += " closed:" + label + "=" + std::to_string(n);
  for (size_t type = 0; type < kCommandTypeCount; ++type) {
    if (!t.commands[type])
      continue;
    out += " cmd:" + std::to_string(type) + "=" +
           std::to_string(t.commands[type]) + "," +
           std::to_string(t.commandNs[type]);
    for (uint64_t b : t.commandBuckets[type])
      out += "," + std::to_string(b);
  }
  return out;
}

bool parseTotalsMessage(const std::string &message, WorkerReport *report) {
  if (message.rfind("totals", 0) != 0 ||
      (message.size() > 6 && message[6] != ' '))
    return false;
  WorkerReport r;
  SessionTotals &t = r.totals;
  size_t at = 7;
  while (at < message.size()) {
    size_t end = message.find(' ', at);
    if (end == std::string::npos)
      end = message.size();
    std::string item = message.substr(at, end - at);
    at = end + 1;
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      return false;
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    uint64_t n = 0;
    if (name.rfind("closed:", 0) == 0) {
      std::string label = name.substr(7);
      if (!isLabel(label) || !parseCount(value, &n))
        return false;
      t.closedByReason[label] = n;
    } else if (name.rfind("cmd:", 0) == 0) {
      uint64_t type = 0;
      if (!parseCount(name.substr(4), &type) || type >= kCommandTypeCount)
        return false;
      // count, ns, then each duration bucket
      std::vector<uint64_t> numbers;
      size_t from = 0;
      for (;;) {
        size_t comma = value.find(',', from);
        if (!parseCount(value.substr(from, comma == std::string::npos
                                               ? std::string::npos
                                               : comma - from),
                        &n))
          return false;
        numbers.push_back(n);
        if (comma == std::string::npos)
          break;
        from = comma + 1;
      }
      if (numbers.size() != 2 + kDurationBucketCount)
        return false;
      t.commands[type] = numbers[0];
      t.commandNs[type] = numbers[1];
      for (size_t b = 0; b < kDurationBucketCount; ++b)
        t.commandBuckets[type][b] = numbers[2 + b];
    } else {
      if (!parseCount(value, &n))
        return false;
      bool known = false;
      for (const TotalsField &f : kTotalsFields)
        if (name == f.name) {
          t.*f.field = n;
          known = true;
        }
      if (name == "device_bytes")
        r.deviceBytes = n;
      else if (name == "auth_failures")
        r.authFailures = n;
      else if (!known)
        return false;
    }
  }
  *report = std::move(r);
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
