#include "inet.h"

#include "sys_error.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rc::transport::detail {

bool resolveIpv4(const std::string &host, const std::string &port,
                 sockaddr_in *out, std::string *error) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *res = nullptr;
  int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
  if (rc || !res) {
    if (error)
      *error = "cannot resolve host '" + host + "': " + gai_strerror(rc);
    return false;
  }
  std::memcpy(out, res->ai_addr, sizeof *out);
  freeaddrinfo(res);
  return true;
}

bool localAddressFor(const sockaddr_in &to, std::string *ip,
                     std::string *error) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    *error = sysError("socket");
    return false;
  }
  sockaddr_in local{};
  socklen_t len = sizeof local;
  bool ok =
      ::connect(fd, reinterpret_cast<const sockaddr *>(&to), sizeof to) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr *>(&local), &len) == 0;
  if (!ok && error)
    *error = "no route to " + ipText(to) + ": " + std::strerror(errno);
  close(fd);
  if (ok)
    *ip = ipText(local);
  return ok;
}

bool probeTcp(const sockaddr_in &to, int timeoutMs, std::string *error,
              bool *refused) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = sysError("socket");
    return false;
  }
  int rc = ::connect(fd, reinterpret_cast<const sockaddr *>(&to), sizeof to);
  int err = rc == 0 ? 0 : errno;
  if (err == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    rc = poll(&p, 1, timeoutMs < 0 ? -1 : timeoutMs);
    if (rc == 0) {
      err = ETIMEDOUT;
    } else {
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    }
  }
  close(fd);
  if (refused)
    *refused = err == ECONNREFUSED;
  if (err == 0)
    return true;
  *error = err == ETIMEDOUT
               ? "no answer from " + ipText(to) + ":" +
                     std::to_string(ntohs(to.sin_port)) +
                     " within the timeout (unreachable?)"
               : std::string(std::strerror(err)) + " (" + ipText(to) + ":" +
                     std::to_string(ntohs(to.sin_port)) + ")";
  return false;
}

std::string ipText(const sockaddr_in &a) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
  return buf;
}

std::vector<uint8_t> rawAddress(const sockaddr_in &a) {
  const auto *p = reinterpret_cast<const uint8_t *>(&a);
  return std::vector<uint8_t>(p, p + sizeof a);
}

std::string hostOfAddressText(const std::string &address) {
  size_t scheme = address.find("://");
  std::string host =
      scheme == std::string::npos ? address : address.substr(scheme + 3);
  size_t port = host.rfind(':');
  if (port != std::string::npos &&
      host.find_first_not_of("0123456789", port + 1) == std::string::npos)
    host.resize(port);
  return host;
}

} // namespace rc::transport::detail
