// rc::transport::connect: the client side of the handshake.
#include "admission.h"
#include "connection.h"
#include "fabric_library.h"
#include "graveyard.h"
#include "inet.h"
#include "shm_regions.h"
#include "unix_rendezvous.h"
#include "url.h"

#include <unistd.h>

#include <cstring>
#include <random>
#include <thread>

namespace rc::transport {

using namespace detail;

namespace {
// Receive buffers per connection: enough fragments in flight to keep a
// large transfer streaming.
constexpr size_t kConnRecvSlots = 16;

// A server refuses connections while it is not listening yet or restarts
// (rc-server reopens its listener after a lost GPU within a second): the
// client knocks again at this interval until its deadline instead of
// failing at once. Nothing listening at all then fails at the deadline.
constexpr auto kKnockInterval = std::chrono::milliseconds(20);

long msLeft(Clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                               Clock::now())
      .count();
}

FrameHeader headerOf(const std::vector<uint8_t> &frame) {
  FrameHeader h{};
  std::memcpy(&h, frame.data(), std::min(frame.size(), sizeof h));
  return h;
}

// shm: sends the request on the handshake socket and reads the listener's
// Accept into *server, answering its challenge first if it sends one
// (admission.h).
bool shmRequest(int fd, const Hello &request, int bellFd,
                const AdmissionKey &admission, Clock::time_point deadline,
                Hello *server, std::string *error) {
  auto left = [&] { return static_cast<int>(std::max(msLeft(deadline), 0L)); };
  std::vector<uint8_t> frame;
  if (!sendHello(fd, FrameType::Connect, request, error, bellFd) ||
      !recvFrame(fd, left(), &frame, error))
    return false;
  if (frameType(frame) == uint16_t(FrameType::Challenge)) {
    Challenge challenge;
    std::vector<uint8_t> prove;
    if (!decodeChallenge(headerOf(frame), frame.data() + sizeof(FrameHeader),
                         frame.size() - sizeof(FrameHeader), &challenge) ||
        challenge.requestNonce != request.nonce) {
      *error = "the listener sent a malformed challenge";
      return false;
    }
    if (!answerChallenge(admission, challenge, request, &prove, error) ||
        !sendFrame(fd, std::move(prove), error) ||
        !recvFrame(fd, left(), &frame, error))
      return false;
  }
  Refusal refusal;
  if (frameType(frame) == uint16_t(FrameType::Refuse) &&
      decodeRefusal(headerOf(frame), frame.data() + sizeof(FrameHeader),
                    frame.size() - sizeof(FrameHeader), &refusal)) {
    *error = "refused admission: " + refusal.why;
    return false;
  }
  return decodeHelloFrame(frame, FrameType::Accept, server, error);
}

// attempt(&refused) until it succeeds, fails for another reason than a
// refusal, or the deadline passes.
template <class Attempt>
bool knockUntil(Clock::time_point deadline, Attempt attempt) {
  for (;;) {
    bool refused = false;
    if (attempt(&refused))
      return true;
    if (!refused || Clock::now() + kKnockInterval >= deadline)
      return false;
    std::this_thread::sleep_for(kKnockInterval);
  }
}
} // namespace

std::unique_ptr<Connection> connect(const std::string &url, int timeoutMs,
                                    std::string *error) {
  return connect(url, timeoutMs, AdmissionKey(), error);
}

std::unique_ptr<Connection> connect(const std::string &url, int timeoutMs,
                                    const AdmissionKey &admission,
                                    std::string *error) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(
                                           timeoutMs < 0 ? 1 << 30 : timeoutMs);
  Url u;
  if (!parseUrl(url, &u, error))
    return nullptr;
  auto fail = [&](const std::string &why) -> std::unique_ptr<Connection> {
    if (error)
      *error = "cannot connect to " + url + ": " + why;
    return nullptr;
  };
  std::string err;
  // Loading libfabric (fabric_library.h) is the slow part of a first
  // connect: done before the handshake starts its clock on the server.
  if (!loadFabricLibrary(&err))
    return fail(err);
  std::unique_ptr<Endpoint> ep;
  if (u.provider == Provider::Tcp) {
    std::vector<uint8_t> listenerAddr;
    sockaddr_in server{};
    std::string localIp;
    if (!resolveIpv4(u.host, u.port, &server, &err) ||
        !localAddressFor(server, &localIp, &err))
      return fail(err);
    if (!knockUntil(deadline, [&](bool *refused) {
          return probeTcp(server,
                          static_cast<int>(std::max(msLeft(deadline), 1L)),
                          &err, refused);
        }))
      return fail(err);
    // Bind to the interface that reaches the server, so the address we
    // advertise in the handshake is one the server can connect back to.
    ep = Endpoint::open(u.provider, localIp, "0", kConnRecvSlots,
                        sizeof(FrameHeader) + kFragmentPayload, &err);
    listenerAddr = rawAddress(server);
    if (!ep)
      return fail(err);
    auto conn = std::make_unique<FabricConnection>(std::move(ep));
    if (!conn->handshakeClient(listenerAddr, url, deadline, admission, error))
      return nullptr;
    return conn;
  }
  // shm: handshake over a Unix socket (see unix_rendezvous.h).
  int fd = -1;
  if (!knockUntil(deadline, [&](bool *refused) {
        return (fd = unixConnect(u.shmName, &err, refused)) >= 0;
      }))
    return fail(err);
  removeStaleShmRegions(); // e.g. those of a server that was killed
  ep = Endpoint::open(u.provider, "", "", kConnRecvSlots,
                      sizeof(FrameHeader) + kFragmentPayload, &err);
  if (!ep) {
    close(fd);
    return fail(err);
  }
  auto conn = std::make_unique<FabricConnection>(std::move(ep));
  // Offered to the server so that it can sleep between our messages
  // (doorbell.h); without one (refused here or unknown to an older
  // server) it polls, as before.
  std::string ignored;
  std::unique_ptr<Doorbell> bell = Doorbell::create(&ignored);
  // The listener gives a connected client 1 s to send its request, and the
  // first endpoint of a process (libfabric loads its providers) took longer
  // than that on a loaded machine: if it hung up meanwhile, connect again,
  // now that everything is ready.
  if (!unixPeerStillThere(fd)) {
    close(fd);
    if ((fd = unixConnect(u.shmName, &err)) < 0)
      return fail(err);
  }
  uint64_t nonce = std::random_device{}() ^
                   (uint64_t(std::random_device{}()) << 32) ^
                   uint64_t(getpid());
  Hello server;
  bool ok = shmRequest(fd, conn->ownHello(nonce), bell ? bell->fd() : -1,
                       admission, deadline, &server, &err);
  uint32_t listenerPid = unixPeerPid(fd);
  close(fd); // before the endpoint: the listener checks this (listener.cpp)
  if (!ok && listenerPid == static_cast<uint32_t>(getpid()))
    parkForever(conn->takeEndpoint()); // see graveyard.h
  if (!ok)
    return fail(err == "no answer within the timeout"
                    ? "the listener did not answer within the timeout"
                    : err);
  if (server.nonce != nonce)
    return fail("the listener answered a different request");
  if (!conn->finishClient(server, &err))
    return fail(err);
  conn->useDoorbell(std::move(bell), /*sleeper=*/false);
  return conn;
}

} // namespace rc::transport
