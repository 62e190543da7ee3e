// rc::transport::listen and the Listener. tcp: owns the well-known libfabric
// endpoint and turns every Connect frame into a private 1:1
// FabricConnection. shm: the same, but the request arrives over a Unix
// socket (see unix_rendezvous.h for why).
//
// Clients in the middle of the handshake are worked on side by side and
// never waited for one at a time: a peer whose advertised address never
// answers, or that connects and says nothing, holds up nobody else. Their
// number is bounded (ListenOptions), and so is the time each one gets.
//
// With ListenOptions::admit, a client first proves a key (admission.h):
// over tcp from the well-known endpoint (listener_admission.h), over shm
// on its socket; only then is its private endpoint opened.
#include "connection.h"
#include "inet.h"
#include "listener_admission.h"
#include "shm_regions.h"
#include "sys_error.h"
#include "unix_rendezvous.h"
#include "url.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <thread>

namespace rc::transport {

using namespace detail;

namespace {
constexpr size_t kListenRecvSlots = 64;
constexpr size_t kListenRecvSize = 4096; // Connect frames are small
constexpr size_t kConnRecvSlots = 16;
// When the handshake table is full, an entry younger than this is not
// pushed out for a newcomer (which then waits): an honest client gets
// through in a few round trips, so only stalled peers grow older.
constexpr long kHandshakeGraceMs = 250;
// Longest single wait inside accept(), so that expiries are noticed.
constexpr int kShmPollMs = 50;

long msSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t)
      .count();
}

// Whether `table` (oldest first, entries with a `started` time) takes one
// more of at most `max`: yes while there is room, or after `drop` removed
// the oldest entry if that one has had its grace; no while all are young.
template <class Entry, class Drop>
bool makeRoom(std::deque<Entry> &table, size_t max, Drop drop) {
  if (table.size() < max)
    return true;
  if (table.empty() || msSince(table.front().started) < kHandshakeGraceMs)
    return false;
  drop(table.front());
  table.pop_front();
  return true;
}

class FabricListener : public Listener {
public:
  // tcp: ep is the well-known endpoint. shm: unixFd is the socket.
  FabricListener(Url url, const ListenOptions &options,
                 std::unique_ptr<Endpoint> ep, std::string bindHost, int unixFd)
      : url_(std::move(url)), options_(options), ep_(std::move(ep)),
        bindHost_(std::move(bindHost)), unixFd_(unixFd) {
    options_.maxHandshakes = std::max(options_.maxHandshakes, 1);
    if (ep_ && ep_->address().size() >= sizeof(sockaddr_in)) {
      sockaddr_in a;
      std::memcpy(&a, ep_->address().data(), sizeof a);
      // Report the real port (the URL may have asked for port 0).
      address_ = "tcp://" + url_.host + ":" + std::to_string(ntohs(a.sin_port));
    } else {
      address_ = url_.text;
    }
    if (options_.admit && ep_)
      admission_ = std::make_unique<TcpAdmission>(
          *ep_, options_.admit, size_t(std::max(options_.maxChallenges, 1)),
          options_.handshakeMs);
  }
  ~FabricListener() override {
    for (Waiting &w : waiting_)
      close(w.fd);
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

  std::string handshakeTimeText() const {
    return std::to_string(options_.handshakeMs) + " ms";
  }

  // ---- tcp ----------------------------------------------------------------
  // A client whose Connect we answer from its private endpoint.
  struct Answering {
    std::unique_ptr<FabricConnection> conn;
    uint64_t nonce;
    std::vector<uint8_t> address;
    Clock::time_point started;
  };

  bool known(const Hello &h) const {
    auto same = [&](uint64_t nonce, const std::vector<uint8_t> &address) {
      return nonce == h.nonce && address == h.address;
    };
    for (const Hello &r : requests_)
      if (same(r.nonce, r.address))
        return true;
    for (const Answering &a : answering_)
      if (same(a.nonce, a.address))
        return true;
    return false;
  }

  void onConnectRequest(const FrameHeader &h, const uint8_t *p, size_t n) {
    Hello hello;
    const auto type = static_cast<FrameType>(h.type);
    if (admission_ && type == FrameType::Prove) {
      if (std::optional<Hello> admitted = admission_->onProve(p, n))
        queueRequest(std::move(*admitted));
      return;
    }
    if (type != FrameType::Connect)
      return; // stray traffic to the well-known endpoint
    if (!decodeHello(p, n, &hello) || hello.version != kProtocolVersion) {
      lastError_ = "ignored a malformed or wrong-version connect request";
      return;
    }
    if (admission_)
      return admission_->onConnect(hello); // nothing opened before a proof
    queueRequest(std::move(hello));
  }

  // A request that may have its private endpoint.
  void queueRequest(Hello hello) {
    if (known(hello))
      return; // a repeated request
    if (requests_.size() >= size_t(options_.maxHandshakes)) {
      lastError_ =
          "dropped a connect request: " + std::to_string(requests_.size()) +
          " wait already";
      return;
    }
    requests_.push_back(std::move(hello));
  }

  // Opens a private endpoint for each waiting request, as room allows.
  void startAnswers() {
    while (!requests_.empty()) {
      bool room = makeRoom(
          answering_, size_t(options_.maxHandshakes), [&](Answering &a) {
            lastError_ = "gave up on " + a.conn->peerDescription() +
                         " to make room for a newer client";
          });
      if (!room)
        return;
      Hello hello = std::move(requests_.front());
      requests_.pop_front();
      auto ep = privateEndpoint();
      if (!ep)
        continue;
      auto conn = std::make_unique<FabricConnection>(std::move(ep));
      conn->limitReceive(options_.accepted);
      std::string err;
      if (!conn->startAnswer(hello, &err)) {
        lastError_ = err;
        continue;
      }
      answering_.push_back(
          {std::move(conn), hello.nonce, hello.address, Clock::now()});
    }
  }

  // One step for every answer in progress; the first one through.
  std::unique_ptr<Connection> advanceAnswers() {
    for (auto it = answering_.begin(); it != answering_.end();) {
      std::string err;
      FabricConnection::Answer step = it->conn->continueAnswer(&err);
      if (step == FabricConnection::Answer::Done) {
        std::unique_ptr<Connection> c = std::move(it->conn);
        answering_.erase(it);
        return c;
      }
      if (step == FabricConnection::Answer::Pending &&
          msSince(it->started) < options_.handshakeMs) {
        ++it;
        continue;
      }
      lastError_ = step == FabricConnection::Answer::Failed
                       ? err
                       : "no answer from " + it->conn->peerDescription() +
                             " within " + handshakeTimeText();
      it = answering_.erase(it);
    }
    return nullptr;
  }

  std::unique_ptr<Connection> acceptTcp(int timeoutMs) {
    const auto start = Clock::now();
    auto onFrame = [this](const FrameHeader &h, const uint8_t *p, size_t n) {
      onConnectRequest(h, p, n);
    };
    for (;;) {
      int n = ep_->progress(onFrame);
      if (n < 0) {
        lastError_ = fiError("fi_cq_read", n);
        return nullptr;
      }
      if (admission_) {
        admission_->pump();
        if (std::string problem = admission_->takeProblem(); !problem.empty())
          lastError_ = problem;
      }
      startAnswers();
      if (auto c = advanceAnswers())
        return c;
      if (n > 0)
        continue;
      if (timeoutMs >= 0 && msSince(start) >= timeoutMs)
        return nullptr;
      // Accept is not latency critical: poll gently.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  // ---- shm ----------------------------------------------------------------
  // A client socket whose request has not fully arrived.
  struct Waiting {
    int fd;
    uint32_t pid;
    Clock::time_point started;
    HelloReader reader;
    // With admission: the challenge this client was sent, and its request.
    bool challenged = false;
    Challenge challenge;
  };

  void dropWaiting(Waiting &w, const std::string &why) {
    lastError_ = "client pid " + std::to_string(w.pid) + ": " + why;
    close(w.fd);
  }

  // Takes every client waiting on the socket, as room allows.
  void takeNewClients() {
    for (;;) {
      bool room =
          makeRoom(waiting_, size_t(options_.maxHandshakes), [&](Waiting &w) {
            dropWaiting(w, "sent no request; dropped for a newer client");
          });
      if (!room)
        return;
      uint32_t pid = 0;
      std::string err;
      int fd = unixAcceptNow(unixFd_, &pid, &err);
      if (fd < 0) {
        if (!err.empty())
          lastError_ = err;
        return;
      }
      waiting_.push_back({fd, pid, Clock::now(), HelloReader(), false, {}});
    }
  }

  // Reads what the ready sockets hold; the first client whose request is
  // complete and admitted.
  std::unique_ptr<Connection> readRequests(const std::vector<pollfd> &fds) {
    // fds[i + 1] is waiting_[i]'s socket.
    for (size_t i = 0, at = 0; i + 1 < fds.size(); ++i) {
      Waiting &w = waiting_[at];
      if (!fds[i + 1].revents) {
        ++at;
        continue;
      }
      Hello hello;
      std::string err;
      std::vector<uint8_t> frame;
      HelloReader::Step step = w.reader.readFrame(w.fd, &frame, &err);
      if (step == HelloReader::Step::More) {
        ++at;
        continue;
      }
      if (step == HelloReader::Step::Done && options_.admit && !w.challenged) {
        if (challengeShm(w, frame, &err)) {
          ++at; // its proof comes next
          continue;
        }
        step = HelloReader::Step::Failed;
      }
      std::unique_ptr<Connection> conn;
      if (step == HelloReader::Step::Done &&
          (options_.admit
               ? provenShm(w, frame, &hello, &err)
               : decodeHelloFrame(frame, FrameType::Connect, &hello, &err)))
        conn = admit(w, hello, &err);
      if (!conn)
        lastError_ = "client pid " + std::to_string(w.pid) + ": " + err;
      close(w.fd);
      waiting_.erase(waiting_.begin() + long(at));
      if (conn)
        return conn;
    }
    return nullptr;
  }

  std::unique_ptr<Connection> acceptShm(int timeoutMs) {
    const auto start = Clock::now();
    for (;;) {
      while (!waiting_.empty() &&
             msSince(waiting_.front().started) >= options_.handshakeMs) {
        dropWaiting(waiting_.front(),
                    "no complete request within " + handshakeTimeText());
        waiting_.pop_front();
      }
      long left = timeoutMs < 0 ? kShmPollMs : timeoutMs - msSince(start);
      if (left < 0)
        return nullptr;
      // A full table leaves new clients in the socket's backlog until its
      // oldest entry may be pushed out.
      bool full = waiting_.size() >= size_t(options_.maxHandshakes);
      long wait = std::min<long>(left, kShmPollMs);
      if (full)
        wait = std::clamp<long>(
            kHandshakeGraceMs - msSince(waiting_.front().started), 0, wait);
      std::vector<pollfd> fds{{full ? -1 : unixFd_, POLLIN, 0}};
      for (const Waiting &w : waiting_)
        fds.push_back({w.fd, POLLIN, 0});
      int ready = poll(fds.data(), fds.size(), int(wait));
      if (ready < 0 && errno != EINTR) {
        lastError_ = sysError("poll");
        return nullptr;
      }
      if (ready > 0)
        if (auto c = readRequests(fds))
          return c;
      takeNewClients();
      if (timeoutMs >= 0 && msSince(start) >= timeoutMs)
        return nullptr;
    }
  }

  // shm with admission: answers the client's Connect with a challenge on
  // its socket; false (with *err) when that cannot be done.
  bool challengeShm(Waiting &w, const std::vector<uint8_t> &frame,
                    std::string *err) {
    Hello request;
    if (!decodeHelloFrame(frame, FrameType::Connect, &request, err))
      return false;
    w.challenge.requestNonce = request.nonce;
    if (!freshNonce(&w.challenge.serverNonce)) {
      *err = "no random bytes for a challenge";
      return false;
    }
    w.challenged = true;
    return sendFrame(w.fd, encodeChallenge(w.challenge), err);
  }

  // shm with admission: whether `frame` proves a key for the challenge the
  // client was sent; *request is then what it asks for. A refusal is told
  // to the client.
  bool provenShm(Waiting &w, const std::vector<uint8_t> &frame, Hello *request,
                 std::string *err) {
    Prove prove;
    if (frameType(frame) != uint16_t(FrameType::Prove) ||
        !decodeProve(frame.data() + sizeof(FrameHeader),
                     frame.size() - sizeof(FrameHeader), &prove)) {
      *err = "sent no proof for its challenge";
      return false;
    }
    AdmissionClaim claim;
    claim.peerHost = "this host";
    claim.hasPeerUid = unixPeerUid(w.fd, &claim.peerUid);
    bool proven = sameNonce(prove.serverNonce, w.challenge.serverNonce) &&
                  checkProof(options_.admit, prove, claim, request, err);
    if (proven && request->nonce == w.challenge.requestNonce)
      return true;
    if (err->empty() || proven)
      *err = "the proof is for another challenge or request";
    std::string ignored;
    sendFrame(w.fd, encodeRefusal({w.challenge.requestNonce, false, *err}),
              &ignored);
    return false;
  }

  std::unique_ptr<Connection> admit(Waiting &w, Hello &client,
                                    std::string *err) {
    // A client that offers a doorbell rings it after every message: this
    // session's thread may then sleep while it waits (doorbell.h). One
    // that cannot be used (not a sealed memfd) leaves the session polling,
    // which is correct, only busier.
    std::unique_ptr<Doorbell> bell;
    int bellFd = w.reader.takePassedFd();
    if (bellFd >= 0) {
      std::string ignored;
      bell = Doorbell::attach(bellFd, &ignored);
    }
    client.pid = w.pid; // the kernel's word, not the client's
    // A client that gave up (closed its socket) may have closed its
    // endpoint too: inserting its address now could crash shm (see
    // unix_rendezvous.h). It closes the socket before the endpoint.
    if (!unixPeerStillThere(w.fd)) {
      *err = "gave up before accept";
      return nullptr;
    }
    auto ep = privateEndpoint();
    if (!ep) {
      *err = lastError_;
      return nullptr;
    }
    auto conn = std::make_unique<FabricConnection>(std::move(ep));
    conn->limitReceive(options_.accepted);
    uint32_t uid = 0;
    if (unixPeerUid(w.fd, &uid))
      conn->setPeerUid(uid); // the kernel's word, like the pid
    // Map the client's region now, while it is alive and waiting for us.
    if (!conn->admitClient(client, err) ||
        !sendHello(w.fd, FrameType::Accept, conn->ownHello(client.nonce), err))
      return nullptr;
    conn->useDoorbell(std::move(bell), /*sleeper=*/true);
    conn->activate();
    return conn;
  }

  Url url_;
  ListenOptions options_;
  std::unique_ptr<Endpoint> ep_; // tcp only
  std::string bindHost_;
  int unixFd_ = -1; // shm only
  std::string address_;
  std::string lastError_;
  std::deque<Hello> requests_;      // tcp: Connect frames not yet answered
  std::deque<Answering> answering_; // tcp: Accepts on their way
  std::deque<Waiting> waiting_;     // shm: requests on their way
  std::unique_ptr<TcpAdmission> admission_; // tcp with options_.admit
};
} // namespace

std::unique_ptr<Listener> listen(const std::string &url, std::string *error) {
  return listen(url, ListenOptions(), error);
}

std::unique_ptr<Listener> listen(const std::string &url,
                                 const ListenOptions &options,
                                 std::string *error) {
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
    removeStaleShmRegions(); // e.g. a killed server's and its clients' files
    // tcp opens its endpoint here; shm's first comes with the first client,
    // who would wait for libfabric's set-up.
    Endpoint::warmUp(u.provider);
    return std::make_unique<FabricListener>(std::move(u), options, nullptr, "",
                                            fd);
  }
  sockaddr_in a{};
  if (!resolveIpv4(u.host, u.port, &a, &err))
    return fail(err);
  std::string bindHost = ipText(a);
  auto ep = Endpoint::open(u.provider, bindHost, u.port, kListenRecvSlots,
                           kListenRecvSize, &err);
  if (!ep)
    return fail(err + " (port in use?)");
  return std::make_unique<FabricListener>(std::move(u), options, std::move(ep),
                                          bindHost, -1);
}

} // namespace rc::transport
