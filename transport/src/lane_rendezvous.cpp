#include "lane_rendezvous.h"

#include "inet.h"
#include "sys_error.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace rc::transport::detail {

namespace {
using Clock = std::chrono::steady_clock;

int msUntil(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                  Clock::now())
                .count();
  return ms < 0 ? 0 : int(ms);
}

// Blocking from here on, and small acknowledgements leave at once.
void makeLane(int fd) {
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

bool sameToken(const uint8_t *a, const LaneToken &b) {
  uint8_t diff = 0; // every byte compared: the time says nothing
  for (size_t i = 0; i < b.size(); ++i)
    diff |= uint8_t(a[i] ^ b[i]);
  return diff == 0;
}

void closeAll(std::vector<int> &fds) {
  for (int &fd : fds)
    if (fd >= 0)
      close(fd), fd = -1;
}
} // namespace

std::unique_ptr<LaneOffer> LaneOffer::open(const std::string &ip, int width,
                                           std::string *error) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (inet_pton(AF_INET, ip.c_str(), &a.sin_addr) != 1) {
    *error = "lanes: not an IPv4 address: " + ip;
    return nullptr;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
      ::listen(fd, 4 * width) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0) {
    *error = sysError("lanes: listen");
    if (fd >= 0)
      close(fd);
    return nullptr;
  }
  std::unique_ptr<LaneOffer> offer(new LaneOffer(fd, ntohs(a.sin_port), width));
  if (getrandom(offer->token_.data(), offer->token_.size(), 0) !=
      ssize_t(offer->token_.size())) {
    *error = sysError("lanes: getrandom");
    return nullptr;
  }
  return offer;
}

LaneOffer::LaneOffer(int fd, uint16_t port, int width)
    : fd_(fd), port_(port), width_(width), token_{} {}

LaneOffer::~LaneOffer() { close(fd_); }

std::unique_ptr<Lanes> LaneOffer::collect(Clock::time_point deadline,
                                          const std::atomic<bool> &stop,
                                          std::shared_ptr<LaneRegions> regions,
                                          std::string *error) {
  struct Introducing {
    int fd;
    LaneIntro intro;
    size_t got;
  };
  std::vector<Introducing> waiting;
  // [direction][index]
  std::vector<int> lanes[2] = {std::vector<int>(size_t(width_), -1),
                               std::vector<int>(size_t(width_), -1)};
  int missing = 2 * width_;
  auto give = [&](const std::string &why) -> std::unique_ptr<Lanes> {
    for (Introducing &w : waiting)
      close(w.fd);
    closeAll(lanes[0]);
    closeAll(lanes[1]);
    *error = why;
    return nullptr;
  };
  while (missing > 0) {
    if (stop.load())
      return give("lanes: the connection closed first");
    if (Clock::now() >= deadline)
      return give("lanes: " + std::to_string(missing) +
                  " of them did not come in time");
    std::vector<pollfd> fds{{fd_, POLLIN, 0}};
    for (const Introducing &w : waiting)
      fds.push_back({w.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), std::min(msUntil(deadline), 20)) < 0 &&
        errno != EINTR)
      return give(sysError("lanes: poll"));
    if (fds[0].revents & POLLIN) {
      int fd = accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      // A crowd of strangers on the port cannot grow this without bound.
      if (fd >= 0 && waiting.size() >= size_t(4 * width_))
        close(fd);
      else if (fd >= 0)
        waiting.push_back({fd, {}, 0});
    }
    for (size_t i = waiting.size(); i-- > 0;) {
      Introducing &w = waiting[i];
      if (!(fds.size() > i + 1 && fds[i + 1].revents))
        continue;
      ssize_t n = recv(w.fd, reinterpret_cast<uint8_t *>(&w.intro) + w.got,
                       sizeof w.intro - w.got, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      bool done = n > 0 && (w.got += size_t(n)) == sizeof w.intro;
      if (n > 0 && !done)
        continue;
      const LaneIntro &in = w.intro;
      int *slot = done && sameToken(in.token, token_) && in.direction <= 1 &&
                          in.index < width_
                      ? &lanes[in.direction][in.index]
                      : nullptr;
      if (slot && *slot < 0) {
        *slot = w.fd;
        --missing;
      } else {
        close(w.fd);
      }
      waiting.erase(waiting.begin() + long(i));
    }
  }
  for (Introducing &w : waiting)
    close(w.fd);
  for (auto &direction : lanes)
    for (int fd : direction)
      makeLane(fd);
  return std::make_unique<Lanes>(lanes[kServerWrites], lanes[kClientWrites],
                                 std::move(regions));
}

std::unique_ptr<Lanes> dialLanes(const sockaddr_in &server,
                                 const LaneToken &token, int width,
                                 Clock::time_point deadline,
                                 std::shared_ptr<LaneRegions> regions,
                                 std::string *error) {
  std::vector<int> lanes[2];
  auto give = [&](const std::string &why) -> std::unique_ptr<Lanes> {
    closeAll(lanes[0]);
    closeAll(lanes[1]);
    *error = "lanes to " + ipText(server) + ":" +
             std::to_string(ntohs(server.sin_port)) + ": " + why;
    return nullptr;
  };
  for (uint8_t direction : {kClientWrites, kServerWrites})
    for (int i = 0; i < width; ++i) {
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0)
        return give(sysError("socket"));
      lanes[direction].push_back(fd);
      int rc = ::connect(fd, reinterpret_cast<const sockaddr *>(&server),
                         sizeof server);
      if (rc != 0 && errno != EINPROGRESS)
        return give(sysError("connect"));
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof err;
      if (rc != 0 &&
          (poll(&p, 1, msUntil(deadline)) != 1 ||
           getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0))
        return give(err ? std::strerror(err) : "no answer in time");
      makeLane(fd);
      LaneIntro intro{};
      std::memcpy(intro.token, token.data(), token.size());
      intro.direction = direction;
      intro.index = uint8_t(i);
      if (send(fd, &intro, sizeof intro, MSG_NOSIGNAL) != ssize_t(sizeof intro))
        return give(sysError("send"));
    }
  return std::make_unique<Lanes>(lanes[kClientWrites], lanes[kServerWrites],
                                 std::move(regions));
}

} // namespace rc::transport::detail
