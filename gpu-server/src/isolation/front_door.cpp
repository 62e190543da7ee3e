#include "isolation/front_door.h"
#include "admission/peer_source.h"
#include "rc/server/log.h"
#include "rc/version.h"
#include "rc/wire_message.h"
#include "session/hello_auth.h"
#include "session/server_message.h"
#include "session/transport_sealing.h"
#include "session/version_skew.h"

#include <chrono>

namespace rc::server {

namespace {

// A worker listening on every interface is reached at the host the client
// reached the supervisor at: the redirect leaves the host out.
std::string redirectAddress(const std::string &workerAddress) {
  const std::string wildcard = "tcp://0.0.0.0:";
  if (workerAddress.rfind(wildcard, 0) == 0)
    return "tcp://:" + workerAddress.substr(wildcard.size());
  return workerAddress;
}

std::vector<uint8_t> redirect(const WorkerPool::Reservation &r,
                              const auth::Proof *serverProof) {
  flatbuffers::FlatBufferBuilder fbb;
  auto error = fbb.CreateString(
      "this rc-server runs each session in a process of its own and "
      "redirects clients to it; this client is too old to follow (rebuild "
      "it with this remote-clang)");
  auto proof = serverProof
                   ? fbb.CreateVector(serverProof->data(), serverProof->size())
                   : 0;
  auto address = fbb.CreateString(redirectAddress(r.address));
  auto ticket = fbb.CreateVector(r.ticket);
  auto release = fbb.CreateString(kReleaseVersion);
  wire::HelloReplyBuilder hr(fbb);
  addServerVersion(hr, release);
  hr.add_ok(false);
  hr.add_error(error);
  if (serverProof)
    hr.add_auth_proof(proof);
  hr.add_redirect(address);
  hr.add_ticket(ticket);
  return finishMessage(fbb, wire::Body::HelloReply, hr.Finish().Union());
}

int msLeft(Lobby::Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - Lobby::Clock::now());
  return int(std::max<int64_t>(left.count(), 0));
}

} // namespace

FrontDoor::FrontDoor(std::vector<auth::Key> keys, const ServerLimits &limits,
                     WorkerPool &pool, TenantLedger *tenants)
    : keys_(std::move(keys)), limits_(limits), pool_(pool), tenants_(tenants) {
  lobby_ = std::make_unique<Lobby>(
      limits_.maxPending, limits_.helloTimeoutMs,
      [this](std::unique_ptr<transport::Connection> c, std::vector<uint8_t> m,
             Lobby::Clock::time_point arrived) {
        startHandshake(std::move(c), std::move(m), arrived);
      },
      [this] { return handshaking_ < limits_.maxPending; });
}

FrontDoor::~FrontDoor() {
  lobby_.reset();
  handshakes_.joinAll();
}

void FrontDoor::serve(std::unique_ptr<transport::Connection> conn) {
  conn->limitReceive(
      {limits_.pendingMessageBytes, limits_.pendingMessageBytes});
  lobby_->admit(std::move(conn));
}

void FrontDoor::startHandshake(std::unique_ptr<transport::Connection> conn,
                               std::vector<uint8_t> first,
                               Lobby::Clock::time_point arrived) {
  ++handshaking_; // before the thread: the lobby's next check counts it
  handshakes_.start(
      [this, arrived, c = std::move(conn), m = std::move(first)]() mutable {
        handshake(*c, std::move(m), arrived);
        c.reset();
        --handshaking_;
      });
}

void FrontDoor::handshake(transport::Connection &conn,
                          std::vector<uint8_t> message,
                          Lobby::Clock::time_point arrived) {
  const uint64_t id = nextId_++;
  const auto deadline =
      arrived + std::chrono::milliseconds(limits_.helloTimeoutMs);
  const std::string source = peerSource(conn);
  auto refuse = [&](const std::string &why, uint32_t retryMs = 0) {
    std::vector<uint8_t> reply = helloRefusal(why, retryMs);
    conn.send(reply.data(), reply.size());
    ++refused_;
    logDebug("client " + std::to_string(id) + " from " + source +
             " refused: " + why);
  };
  std::string bad;
  const wire::Message *msg =
      wire::openMessage(message.data(), message.size(), &bad);
  if (!msg)
    return refuse(bad + versionHint());
  const wire::Hello *hello = msg->body_as_Hello();
  if (!hello)
    return refuse("unexpected message: the first message must be Hello" +
                  versionHint());
  std::string skew = versionSkewRefusal(*hello);
  if (!skew.empty())
    return refuse(skew);
  HelloAuth auth(keys_, &throttle_, id);
  auth::Proof serverProof;
  if (auth.required()) {
    // Nothing is reserved, and nothing about this server told, before the
    // client proved it holds a key.
    std::vector<uint8_t> challenge, answer;
    std::string why;
    auth.announceSealing(sealWanted(conn));
    if (!auth.challenge(*hello, message.data(), message.size(), source,
                        &challenge, &why))
      return refuse(why);
    if (conn.send(challenge.data(), challenge.size()) != transport::Status::Ok)
      return;
    if (conn.recv(answer, msLeft(deadline)) != transport::Status::Ok)
      return logDebug("client " + std::to_string(id) +
                      " did not answer the challenge in time");
    const wire::Message *m =
        wire::openMessage(answer.data(), answer.size(), &bad);
    const wire::AuthResponse *response =
        m ? m->body_as_AuthResponse() : nullptr;
    if (!response)
      return refuse(m ? "expected the AuthResponse" : bad);
    if (!auth.verify(*response, &serverProof, &why)) {
      logAt(auth.failedWhileBackingOff() ? LogLevel::Debug : LogLevel::Info,
            {"auth_failed", 0, auth.keyId()},
            "client " + std::to_string(id) + " from " + source + ": " + why);
      return refuse(why);
    }
    // The redirect and its ticket travel sealed.
    if (auth.sealing() &&
        !sealConnection(conn, *auth.provenKey(), auth.transcript(), &why))
      return refuse(why);
  }
  // The reservation counts against the tenant's sessions from now until
  // its ticket lapses or its worker ends (WorkerPoolOptions::released),
  // and only its holder may redeem the ticket: the key the client proved,
  // or without keys where it comes from.
  const std::string tenant = auth.required() ? auth.keyId() : "";
  WorkerPool::Request request;
  request.holder = ticketHolder(auth.required(), tenant, source);
  std::string why;
  const bool counted = tenants_ && auth.required();
  if (counted && !tenants_->openSession(tenant, &why))
    return refuse(why);
  if (counted)
    request.tenant = tenant;
  WorkerPool::Reservation r;
  uint32_t retryMs = 0;
  if (!pool_.reserve(msLeft(deadline), request, &r, &why, &retryMs)) {
    if (counted)
      tenants_->closeSession(tenant);
    return refuse(why, retryMs);
  }
  std::vector<uint8_t> reply =
      redirect(r, auth.required() ? &serverProof : nullptr);
  if (conn.send(reply.data(), reply.size()) != transport::Status::Ok)
    return logDebug("client " + std::to_string(id) +
                    " left before its redirect: " + conn.lastError());
  ++redirected_;
  std::string name = hello->client_name() ? hello->client_name()->str() : "";
  logDebug("client " + std::to_string(id) + " (" + name + ", pid " +
           std::to_string(hello->client_pid()) + ") from " + source +
           (auth.required() ? ", key '" + auth.keyId() + "'" : "") +
           " goes to worker " + std::to_string(r.pid));
}

} // namespace rc::server
