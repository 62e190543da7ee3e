#include "wire_tap.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace rc::transport::test {
namespace {

using SendmsgFn = ssize_t (*)(int, const msghdr *, int);

SendmsgFn realSendmsg() {
  static auto fn = reinterpret_cast<SendmsgFn>(dlsym(RTLD_NEXT, "sendmsg"));
  return fn;
}

struct State {
  std::mutex mu;
  bool recording = false;
  std::vector<uint8_t> bytes;
  bool armed = false;
  WireTap::Action action = WireTap::Action::Flip;
  size_t minBytes = 0, fromEnd = 0;
  bool fired = false;
};
// Leaked: the provider's threads may send while statics are destroyed.
State &state() {
  static auto *s = new State;
  return *s;
}
std::atomic<bool> gActive{false};

bool isTcp(int fd) {
  int protocol = 0;
  socklen_t len = sizeof protocol;
  return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) == 0 &&
         protocol == IPPROTO_TCP;
}

// Sends all of `bytes` (the socket may be non-blocking).
void sendWhole(int fd, const std::vector<uint8_t> &bytes, int flags) {
  for (size_t at = 0; at < bytes.size();) {
    iovec iov{const_cast<uint8_t *>(bytes.data() + at), bytes.size() - at};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    ssize_t n = realSendmsg()(fd, &m, flags);
    if (n > 0) {
      at += size_t(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, 100);
    } else {
      return;
    }
  }
}

ssize_t tappedSendmsg(int fd, const msghdr *msg, int flags) {
  if (!gActive.load() || !isTcp(fd))
    return realSendmsg()(fd, msg, flags);
  std::vector<uint8_t> flat;
  for (size_t i = 0; i < size_t(msg->msg_iovlen); ++i) {
    const auto *p = static_cast<const uint8_t *>(msg->msg_iov[i].iov_base);
    flat.insert(flat.end(), p, p + msg->msg_iov[i].iov_len);
  }
  State &s = state();
  bool act = false;
  WireTap::Action action;
  size_t fromEnd;
  {
    std::lock_guard<std::mutex> g(s.mu);
    if (s.recording && s.bytes.size() < (size_t(256) << 20))
      s.bytes.insert(s.bytes.end(), flat.begin(), flat.end());
    if (s.armed && flat.size() >= s.minBytes) {
      act = true;
      s.armed = false;
      s.fired = true;
      action = s.action;
      fromEnd = std::min(s.fromEnd, flat.size());
    }
  }
  if (!act)
    return realSendmsg()(fd, msg, flags);
  switch (action) {
  case WireTap::Action::Drop:
    return ssize_t(flat.size());
  case WireTap::Action::Replay:
    sendWhole(fd, flat, flags);
    sendWhole(fd, flat, flags);
    return ssize_t(flat.size());
  case WireTap::Action::Flip:
  default:
    flat[flat.size() - fromEnd] ^= 0x20;
    sendWhole(fd, flat, flags);
    return ssize_t(flat.size());
  }
}

} // namespace

void WireTap::record() {
  std::lock_guard<std::mutex> g(state().mu);
  state().bytes.clear();
  state().recording = true;
  gActive = true;
}

void WireTap::stop() {
  std::lock_guard<std::mutex> g(state().mu);
  state().recording = false;
}

std::vector<uint8_t> WireTap::recorded() {
  std::lock_guard<std::mutex> g(state().mu);
  return state().bytes;
}

bool WireTap::recordedContains(const std::vector<uint8_t> &needle) {
  std::lock_guard<std::mutex> g(state().mu);
  const auto &b = state().bytes;
  return std::search(b.begin(), b.end(), needle.begin(), needle.end()) !=
         b.end();
}

void WireTap::arm(Action action, size_t minBytes, size_t fromEnd) {
  std::lock_guard<std::mutex> g(state().mu);
  State &s = state();
  s.armed = true;
  s.fired = false;
  s.action = action;
  s.minBytes = minBytes;
  s.fromEnd = fromEnd;
  gActive = true;
}

void WireTap::disarm() {
  std::lock_guard<std::mutex> g(state().mu);
  state().armed = false;
}

bool WireTap::fired() {
  std::lock_guard<std::mutex> g(state().mu);
  return state().fired;
}

} // namespace rc::transport::test

// The interposed C library functions.
extern "C" {
ssize_t sendmsg(int fd, const msghdr *msg, int flags) {
  return rc::transport::test::tappedSendmsg(fd, msg, flags);
}
ssize_t send(int fd, const void *buf, size_t len, int flags) {
  iovec iov{const_cast<void *>(buf), len};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  return rc::transport::test::tappedSendmsg(fd, &m, flags);
}
ssize_t sendto(int fd, const void *buf, size_t len, int flags,
               const sockaddr *to, socklen_t toLen) {
  if (to) {
    iovec iov{const_cast<void *>(buf), len};
    msghdr m{};
    m.msg_name = const_cast<sockaddr *>(to);
    m.msg_namelen = toLen;
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    return rc::transport::test::tappedSendmsg(fd, &m, flags);
  }
  return send(fd, buf, len, flags);
}
}
