#include "raw_peer.h"

#include "inet.h"
#include "unix_rendezvous.h"
#include "url.h"

#include <rdma/fi_errno.h>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace rc::transport::test {

using namespace detail;
using Clock = std::chrono::steady_clock;

namespace {
constexpr size_t kRecvSlots = 4;

std::unique_ptr<Endpoint> openEndpoint(Provider p, std::string *error) {
  return p == Provider::Tcp
             ? Endpoint::open(p, "127.0.0.1", "0", kRecvSlots,
                              sizeof(FrameHeader) + kFragmentPayload, error)
             : Endpoint::open(p, "", "", kRecvSlots,
                              sizeof(FrameHeader) + kFragmentPayload, error);
}

// Posts buf[0..size) as one copied send, progressing until it may.
bool post(Endpoint &ep, fi_addr_t to, const std::vector<uint8_t> &buf,
          Clock::time_point deadline) {
  auto ignore = [](const FrameHeader &, const uint8_t *, size_t) {};
  for (;;) {
    SendSlot *slot = ep.freeSlot();
    if (slot) {
      slot->copy = buf;
      long rc = ep.sendCopy(to, slot, buf.size());
      if (rc == 0)
        return true;
      if (rc != -FI_EAGAIN)
        return false;
    }
    ep.progress(ignore);
    if (Clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

bool listenerAddress(const Url &u, std::vector<uint8_t> *out,
                     std::string *error) {
  sockaddr_in a{};
  if (!resolveIpv4(u.host, u.port, &a, error))
    return false;
  *out = rawAddress(a);
  return true;
}
} // namespace

RawPeer::~RawPeer() {
  if (shmSocket_ >= 0)
    close(shmSocket_);
}

bool RawPeer::connect(const std::string &url, int timeoutMs,
                      std::string *error) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  Url u;
  if (!parseUrl(url, &u, error) || !(ep_ = openEndpoint(u.provider, error)))
    return false;
  Hello &mine = request_;
  mine.nonce = uint64_t(getpid()) * 7919 +
               uint64_t(Clock::now().time_since_epoch().count());
  mine.pid = uint32_t(getpid());
  mine.hostname = "raw-peer";
  mine.address = ep_->address();
  Hello server;
  if (u.provider == Provider::Shm) {
    int fd = unixConnect(u.shmName, error);
    if (fd < 0)
      return false;
    std::vector<uint8_t> frame;
    bool ok = sendHello(fd, FrameType::Connect, mine, error) &&
              recvFrame(fd, timeoutMs, &frame, error);
    if (ok && frameType(frame) == uint16_t(FrameType::Challenge)) {
      shmSocket_ = fd; // held, unanswered
      return challenged_ = true;
    }
    ok = ok && decodeHelloFrame(frame, FrameType::Accept, &server, error);
    close(fd);
    if (!ok)
      return false;
  } else {
    std::vector<uint8_t> listener;
    fi_addr_t to;
    if (!listenerAddress(u, &listener, error) ||
        !ep_->insertPeer(listener, &to, error))
      return false;
    if (!post(*ep_, to, encodeHello(FrameType::Connect, mine), deadline)) {
      *error = "cannot send the connect request";
      return false;
    }
    bool accepted = false;
    auto onFrame = [&](const FrameHeader &h, const uint8_t *p, size_t n) {
      if (static_cast<FrameType>(h.type) == FrameType::Accept &&
          decodeHello(p, n, &server))
        accepted = true;
      if (static_cast<FrameType>(h.type) == FrameType::Challenge)
        challenged_ = true;
    };
    while (!accepted) {
      if (challenged_) {
        server_ = to; // the listener's, for knockAgain
        return true;
      }
      if (ep_->progress(onFrame) == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      if (Clock::now() > deadline) {
        *error = "no Accept within the timeout";
        return false;
      }
    }
  }
  return ep_->insertPeer(server.address, &server_, error);
}

bool RawPeer::knockAgain() {
  if (!challenged_ || shmSocket_ >= 0)
    return false;
  ++request_.nonce;
  return post(*ep_, server_, encodeHello(FrameType::Connect, request_),
              Clock::now() + std::chrono::seconds(1));
}

bool RawPeer::openTowardsListener(const std::string &url, std::string *error) {
  Url u;
  std::vector<uint8_t> listener;
  if (!parseUrl(url, &u, error) || !listenerAddress(u, &listener, error) ||
      !(ep_ = openEndpoint(u.provider, error)))
    return false;
  return ep_->insertPeer(listener, &server_, error);
}

bool RawPeer::connectRequest(const std::vector<uint8_t> &fakeAddress) {
  static uint64_t counter = 0;
  Hello fake;
  fake.nonce = uint64_t(Clock::now().time_since_epoch().count()) + ++counter;
  fake.pid = uint32_t(getpid());
  fake.hostname = "nowhere";
  fake.address = fakeAddress;
  auto deadline = Clock::now() + std::chrono::seconds(5);
  if (!post(*ep_, server_, encodeHello(FrameType::Connect, fake), deadline))
    return false;
  // Until the request left this process.
  auto ignore = [](const FrameHeader &, const uint8_t *, size_t) {};
  while (ep_->anySendBusy() && Clock::now() < deadline)
    ep_->progress(ignore);
  return true;
}

bool RawPeer::sendConnectNaming(const std::string &url,
                                const std::vector<uint8_t> &fakeAddress,
                                std::string *error) {
  RawPeer p;
  if (!p.openTowardsListener(url, error))
    return false;
  if (p.connectRequest(fakeAddress))
    return true;
  *error = "cannot send the connect request";
  return false;
}

bool RawPeer::closedByServer() {
  if (shmSocket_ >= 0)
    return closed_ = closed_ || !unixPeerStillThere(shmSocket_);
  if (challenged_) { // nothing to close; keep the provider moving
    auto ignore = [](const FrameHeader &, const uint8_t *, size_t) {};
    ep_->progress(ignore);
    return false;
  }
  auto onFrame = [this](const FrameHeader &h, const uint8_t *, size_t) {
    if (static_cast<FrameType>(h.type) == FrameType::Close)
      closed_ = true;
  };
  if (ep_->progress(onFrame) < 0)
    closed_ = true;
  return closed_;
}

bool RawPeer::sendFrame(FrameType type, uint64_t seq, uint64_t total,
                        uint64_t offset, const void *payload, size_t size) {
  FrameHeader h{kFrameMagic, static_cast<uint16_t>(type), 0, seq, total,
                offset};
  std::vector<uint8_t> buf(sizeof h + size);
  std::memcpy(buf.data(), &h, sizeof h);
  if (size)
    std::memcpy(buf.data() + sizeof h, payload, size);
  return post(*ep_, server_, buf, Clock::now() + std::chrono::seconds(5));
}

void RawPeer::progress(int ms) {
  auto until = Clock::now() + std::chrono::milliseconds(ms);
  auto ignore = [](const FrameHeader &, const uint8_t *, size_t) {};
  while (Clock::now() < until)
    if (ep_->progress(ignore) == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
}

} // namespace rc::transport::test
