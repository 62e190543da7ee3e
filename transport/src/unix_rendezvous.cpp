#include "unix_rendezvous.h"

#include "sys_error.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>

namespace rc::transport::detail {

namespace {
using Clock = std::chrono::steady_clock;

// A Connect or Accept frame is a few hundred bytes; this is its sanity cap.
constexpr uint32_t kMaxHelloFrame = 64 * 1024;

socklen_t abstractAddress(const std::string &name, sockaddr_un *a) {
  std::memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  std::string path = "rc_transport." + name; // after the leading NUL
  std::memcpy(a->sun_path + 1, path.data(), path.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 +
                                path.size());
}

uint32_t peerPid(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return 0;
  return static_cast<uint32_t>(cred.pid);
}

// Waits for fd to be ready for `events` until deadline; false on timeout.
bool waitFd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    if (left < 0)
      return false;
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, static_cast<int>(left));
    if (rc > 0)
      return true;
    if (rc == 0)
      return false;
    if (errno != EINTR)
      return false;
  }
}

// A file descriptor travels as SCM_RIGHTS with the first byte sent after
// it; recvmsg hands it over with the bytes it arrived with.
union FdControl {
  cmsghdr header;
  char bytes[CMSG_SPACE(sizeof(int))];
};

ssize_t sendWithFd(int fd, const uint8_t *data, size_t n, int passFd) {
  iovec iov{const_cast<uint8_t *>(data), n};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  FdControl control{};
  if (passFd >= 0) {
    m.msg_control = control.bytes;
    m.msg_controllen = sizeof control.bytes;
    cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &passFd, sizeof passFd);
  }
  return ::sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// Like recv, keeping a passed file descriptor in *passedFd (if asked and
// none was kept yet); extra ones are closed.
ssize_t recvWithFd(int fd, uint8_t *data, size_t n, int *passedFd) {
  iovec iov{data, n};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  FdControl control{};
  m.msg_control = control.bytes;
  m.msg_controllen = sizeof control.bytes;
  ssize_t got = ::recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  for (cmsghdr *c = got >= 0 ? CMSG_FIRSTHDR(&m) : nullptr; c;
       c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
      continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int passed;
      std::memcpy(&passed, CMSG_DATA(c) + i * sizeof(int), sizeof passed);
      if (passedFd && *passedFd < 0)
        *passedFd = passed;
      else
        close(passed);
    }
  }
  return got;
}

bool readAll(int fd, void *buf, size_t n, Clock::time_point deadline,
             std::string *error, int *passedFd = nullptr) {
  auto *p = static_cast<uint8_t *>(buf);
  while (n > 0) {
    if (!waitFd(fd, POLLIN, deadline)) {
      *error = "no answer within the timeout";
      return false;
    }
    ssize_t got = recvWithFd(fd, p, n, passedFd);
    if (got == 0) {
      *error = "the other side closed the handshake socket";
      return false;
    }
    if (got < 0) {
      if (errno == EAGAIN || errno == EINTR)
        continue;
      *error = sysError("recv");
      return false;
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}
} // namespace

int unixListen(const std::string &name, std::string *error) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = sysError("socket");
    return -1;
  }
  sockaddr_un a;
  socklen_t len = abstractAddress(name, &a);
  if (bind(fd, reinterpret_cast<sockaddr *>(&a), len) != 0) {
    int e = errno;
    close(fd);
    if (e == EADDRINUSE) {
      // Say who holds it: the kernel knows the owner's pid.
      int probe = unixConnect(name, error);
      uint32_t pid = probe >= 0 ? peerPid(probe) : 0;
      if (probe >= 0)
        close(probe);
      *error = "the name is in use by process " + std::to_string(pid);
      return -1;
    }
    errno = e;
    *error = sysError("bind");
    return -1;
  }
  if (::listen(fd, 64) != 0) {
    *error = sysError("listen");
    close(fd);
    return -1;
  }
  return fd;
}

int unixAcceptNow(int listenFd, uint32_t *pid, std::string *error) {
  error->clear();
  for (;;) {
    int fd = accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      *pid = peerPid(fd);
      return fd;
    }
    if (errno == EINTR || errno == ECONNABORTED)
      continue;
    if (errno != EAGAIN)
      *error = sysError("accept");
    return -1;
  }
}

int unixConnect(const std::string &name, std::string *error, bool *refused) {
  if (refused)
    *refused = false;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = sysError("socket");
    return -1;
  }
  sockaddr_un a;
  socklen_t len = abstractAddress(name, &a);
  if (::connect(fd, reinterpret_cast<sockaddr *>(&a), len) != 0) {
    // EAGAIN: a listener whose backlog is full, busy rather than absent.
    if (refused)
      *refused = errno == ECONNREFUSED || errno == ENOENT || errno == EAGAIN;
    *error = errno == ECONNREFUSED || errno == ENOENT
                 ? "nothing is listening there (no shm listener named '" +
                       name + "' on this host)"
                 : sysError("connect");
    close(fd);
    return -1;
  }
  return fd;
}

uint32_t unixPeerPid(int fd) { return peerPid(fd); }

bool unixPeerUid(int fd, uint32_t *uid) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return false;
  *uid = static_cast<uint32_t>(cred.uid);
  return true;
}

bool unixPeerStillThere(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return poll(&p, 1, 0) == 0; // any event = hung up or error
}

bool sendHello(int fd, FrameType type, const Hello &hello, std::string *error,
               int passFd) {
  return sendFrame(fd, encodeHello(type, hello), error, passFd);
}

bool sendFrame(int fd, std::vector<uint8_t> frame, std::string *error,
               int passFd) {
  uint32_t n = static_cast<uint32_t>(frame.size());
  frame.insert(frame.begin(), reinterpret_cast<uint8_t *>(&n),
               reinterpret_cast<uint8_t *>(&n) + sizeof n);
  size_t off = 0;
  auto deadline = Clock::now() + std::chrono::seconds(2);
  while (off < frame.size()) {
    ssize_t put = sendWithFd(fd, frame.data() + off, frame.size() - off,
                             off == 0 ? passFd : -1);
    if (put > 0) {
      off += static_cast<size_t>(put);
      continue;
    }
    if (put < 0 && (errno == EAGAIN || errno == EINTR) &&
        waitFd(fd, POLLOUT, deadline))
      continue;
    *error = put < 0 ? sysError("send") : "send: nothing written";
    return false;
  }
  return true;
}

bool decodeHelloFrame(const std::vector<uint8_t> &buf, FrameType type,
                      Hello *hello, std::string *error) {
  FrameHeader h;
  std::memcpy(&h, buf.data(), sizeof h);
  if (h.magic != kFrameMagic || h.type != static_cast<uint16_t>(type) ||
      !decodeHello(buf.data() + sizeof h, buf.size() - sizeof h, hello) ||
      hello->version != kProtocolVersion) {
    *error = "malformed or wrong-version handshake";
    return false;
  }
  return true;
}

HelloReader &HelloReader::operator=(HelloReader &&o) noexcept {
  std::memcpy(length_, o.length_, sizeof length_);
  lengthGot_ = o.lengthGot_;
  frame_ = std::move(o.frame_);
  frameGot_ = o.frameGot_;
  std::swap(passedFd_, o.passedFd_); // o closes what this one held
  return *this;
}

HelloReader::~HelloReader() {
  if (passedFd_ >= 0)
    close(passedFd_);
}

int HelloReader::takePassedFd() {
  int fd = passedFd_;
  passedFd_ = -1;
  return fd;
}

HelloReader::Step HelloReader::readAvailable(int fd, FrameType type,
                                             Hello *hello, std::string *error) {
  std::vector<uint8_t> frame;
  Step step = readFrame(fd, &frame, error);
  if (step == Step::Done && !decodeHelloFrame(frame, type, hello, error))
    return Step::Failed;
  return step;
}

HelloReader::Step HelloReader::readFrame(int fd, std::vector<uint8_t> *frame,
                                         std::string *error) {
  for (;;) {
    bool inLength = lengthGot_ < sizeof length_;
    uint8_t *to = inLength ? length_ + lengthGot_ : frame_.data() + frameGot_;
    size_t want =
        inLength ? sizeof length_ - lengthGot_ : frame_.size() - frameGot_;
    ssize_t got = recvWithFd(fd, to, want, &passedFd_);
    if (got == 0) {
      *error = "the client closed the handshake socket before its request";
      return Step::Failed;
    }
    if (got < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN)
        return Step::More;
      *error = sysError("recv");
      return Step::Failed;
    }
    if (!inLength) {
      frameGot_ += size_t(got);
      if (frameGot_ < frame_.size())
        continue;
      *frame = std::move(frame_); // and ready for the next frame
      frame_.clear();
      frameGot_ = lengthGot_ = 0;
      return Step::Done;
    }
    lengthGot_ += size_t(got);
    if (lengthGot_ < sizeof length_)
      continue;
    uint32_t n;
    std::memcpy(&n, length_, sizeof n);
    if (n < sizeof(FrameHeader) || n > kMaxHelloFrame) {
      *error = "malformed handshake (length " + std::to_string(n) + ")";
      return Step::Failed;
    }
    frame_.resize(n);
  }
}

bool recvFrame(int fd, int timeoutMs, std::vector<uint8_t> *frame,
               std::string *error, int *passedFd) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  if (passedFd)
    *passedFd = -1;
  uint32_t n = 0;
  bool ok = readAll(fd, &n, sizeof n, deadline, error, passedFd);
  if (ok && (n < sizeof(FrameHeader) || n > kMaxHelloFrame)) {
    *error = "malformed handshake (length " + std::to_string(n) + ")";
    ok = false;
  }
  frame->assign(ok ? n : 0, 0);
  ok = ok && readAll(fd, frame->data(), n, deadline, error);
  if (!ok && passedFd && *passedFd >= 0) {
    close(*passedFd); // a failed handshake hands nothing over
    *passedFd = -1;
  }
  return ok;
}

bool recvHello(int fd, FrameType type, int timeoutMs, Hello *hello,
               std::string *error, int *passedFd) {
  std::vector<uint8_t> buf;
  bool ok = recvFrame(fd, timeoutMs, &buf, error, passedFd) &&
            decodeHelloFrame(buf, type, hello, error);
  if (!ok && passedFd && *passedFd >= 0) {
    close(*passedFd); // a failed handshake hands nothing over
    *passedFd = -1;
  }
  return ok;
}

uint16_t frameType(const std::vector<uint8_t> &frame) {
  FrameHeader h;
  if (frame.size() < sizeof h)
    return 0;
  std::memcpy(&h, frame.data(), sizeof h);
  return h.magic == kFrameMagic ? h.type : 0;
}

} // namespace rc::transport::detail
