// rc::transport::listen and the Listener. tcp: owns the well-known libfabric
// endpoint and turns every Connect frame into a private 1:1
// FabricConnection. shm: the same, but the request arrives over a Unix
// socket (see unix_rendezvous.h for why).
#include "connection.h"
#include "inet.h"
#include "unix_rendezvous.h"
#include "url.h"

#include <unistd.h>

#include <cstring>
#include <deque>
#include <thread>

namespace rc::transport {

using namespace detail;

namespace {
constexpr size_t kListenRecvSlots = 64;
constexpr size_t kListenRecvSize = 4096; // Connect frames are small
constexpr size_t kConnRecvSlots = 16;
// A local client gets this long to send its request once connected.
constexpr int kShmHelloTimeoutMs = 1000;

class FabricListener : public Listener {
public:
  // tcp: ep is the well-known endpoint. shm: unixFd is the socket.
  FabricListener(Url url, std::unique_ptr<Endpoint> ep, std::string bindHost,
                 int unixFd)
      : url_(std::move(url)), ep_(std::move(ep)),
        bindHost_(std::move(bindHost)), unixFd_(unixFd) {
    if (ep_ && ep_->address().size() >= sizeof(sockaddr_in)) {
      sockaddr_in a;
      std::memcpy(&a, ep_->address().data(), sizeof a);
      // Report the real port (the URL may have asked for port 0).
      address_ = "tcp://" + url_.host + ":" + std::to_string(ntohs(a.sin_port));
    } else {
      address_ = url_.text;
    }
  }
  ~FabricListener() override {
    if (unixFd_ >= 0)
      close(unixFd_);
  }

  std::unique_ptr<Connection> accept(int timeoutMs) override {
    lastError_.clear();
    auto c = url_.provider == Provider::Tcp ? acceptTcp(timeoutMs)
                                            : acceptShm(timeoutMs);
    if (!c) {
      std::string earlier =
          lastError_.empty() ? "" : " (last problem: " + lastError_ + ")";
      lastError_ = "no client connected to " + address_ + " within " +
                   std::to_string(timeoutMs) + " ms" + earlier;
    }
    return c;
  }

  std::string address() const override { return address_; }
  std::string lastError() const override { return lastError_; }

private:
  static long msSince(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                                 t)
        .count();
  }

  std::unique_ptr<Endpoint> privateEndpoint() {
    std::string err;
    // tcp: bind next to the listener (any port) so the private endpoint is
    // reachable wherever the listener is.
    auto ep =
        url_.provider == Provider::Tcp
            ? Endpoint::open(url_.provider, bindHost_, "0", kConnRecvSlots,
                             sizeof(FrameHeader) + kFragmentPayload, &err)
            : Endpoint::open(url_.provider, "", "", kConnRecvSlots,
                             sizeof(FrameHeader) + kFragmentPayload, &err);
    if (!ep)
      lastError_ = "private endpoint: " + err;
    return ep;
  }

  std::unique_ptr<Connection> acceptTcp(int timeoutMs) {
    const auto start = Clock::now();
    auto onFrame = [this](const FrameHeader &h, const uint8_t *p, size_t n) {
      Hello hello;
      if (static_cast<FrameType>(h.type) != FrameType::Connect)
        return; // stray traffic to the well-known endpoint
      if (!decodeHello(p, n, &hello) || hello.version != kProtocolVersion) {
        lastError_ = "ignored a malformed or wrong-version connect request";
        return;
      }
      pending_.push_back(std::move(hello));
    };
    for (;;) {
      while (!pending_.empty()) {
        Hello hello = std::move(pending_.front());
        pending_.pop_front();
        auto ep = privateEndpoint();
        if (!ep)
          continue;
        auto conn = std::make_unique<FabricConnection>(std::move(ep));
        std::string err;
        if (conn->handshakeServer(hello, &err))
          return conn;
        lastError_ = err;
      }
      int n = ep_->progress(onFrame);
      if (n < 0) {
        lastError_ = fiError("fi_cq_read", n);
        return nullptr;
      }
      if (n > 0)
        continue;
      if (timeoutMs >= 0 && msSince(start) >= timeoutMs)
        return nullptr;
      // Accept is not latency critical: poll gently.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  std::unique_ptr<Connection> acceptShm(int timeoutMs) {
    const auto start = Clock::now();
    for (;;) {
      long left = timeoutMs < 0 ? -1 : timeoutMs - msSince(start);
      if (timeoutMs >= 0 && left < 0)
        return nullptr;
      uint32_t pid = 0;
      std::string err;
      int fd = unixAccept(unixFd_, static_cast<int>(left), &pid, &err);
      if (fd < 0) {
        if (!err.empty())
          lastError_ = err;
        return nullptr;
      }
      auto conn = admit(fd, pid, &err);
      close(fd);
      if (conn)
        return conn;
      lastError_ = err; // that client gave up or misbehaved: keep waiting
    }
  }

  std::unique_ptr<Connection> admit(int fd, uint32_t pid, std::string *err) {
    Hello client;
    int bellFd = -1;
    if (!recvHello(fd, FrameType::Connect, kShmHelloTimeoutMs, &client, err,
                   &bellFd))
      return nullptr;
    // A client that offers a doorbell rings it after every message: this
    // session's thread may then sleep while it waits (doorbell.h). One
    // that cannot be used (not a sealed memfd) leaves the session polling,
    // which is correct, only busier.
    std::unique_ptr<Doorbell> bell;
    if (bellFd >= 0) {
      std::string ignored;
      bell = Doorbell::attach(bellFd, &ignored);
    }
    client.pid = pid; // the kernel's word, not the client's
    // A client that gave up (closed its socket) may have closed its
    // endpoint too: inserting its address now could crash shm (see
    // unix_rendezvous.h). It closes the socket before the endpoint.
    if (!unixPeerStillThere(fd)) {
      *err = "client pid " + std::to_string(pid) + " gave up before accept";
      return nullptr;
    }
    auto ep = privateEndpoint();
    if (!ep) {
      *err = lastError_;
      return nullptr;
    }
    auto conn = std::make_unique<FabricConnection>(std::move(ep));
    // Map the client's region now, while it is alive and waiting for us.
    if (!conn->admitClient(client, err) ||
        !sendHello(fd, FrameType::Accept, conn->ownHello(client.nonce), err))
      return nullptr;
    conn->useDoorbell(std::move(bell), /*sleeper=*/true);
    conn->activate();
    return conn;
  }

  Url url_;
  std::unique_ptr<Endpoint> ep_; // tcp only
  std::string bindHost_;
  int unixFd_ = -1; // shm only
  std::string address_;
  std::string lastError_;
  std::deque<Hello> pending_;
};
} // namespace

std::unique_ptr<Listener> listen(const std::string &url, std::string *error) {
  Url u;
  if (!parseUrl(url, &u, error))
    return nullptr;
  std::string err;
  auto fail = [&](const std::string &why) -> std::unique_ptr<Listener> {
    if (error)
      *error = "cannot listen on " + url + ": " + why;
    return nullptr;
  };
  if (u.provider == Provider::Shm) {
    int fd = unixListen(u.shmName, &err);
    if (fd < 0)
      return fail(err);
    return std::make_unique<FabricListener>(std::move(u), nullptr, "", fd);
  }
  sockaddr_in a{};
  if (!resolveIpv4(u.host, u.port, &a, &err))
    return fail(err);
  std::string bindHost = ipText(a);
  auto ep = Endpoint::open(u.provider, bindHost, u.port, kListenRecvSlots,
                           kListenRecvSize, &err);
  if (!ep)
    return fail(err + " (port in use?)");
  return std::make_unique<FabricListener>(std::move(u), std::move(ep), bindHost,
                                          -1);
}

} // namespace rc::transport
