#include "connection.h"

#include "graveyard.h"
#include "inet.h"
#include "keeper.h"
#include "precise_sleep.h"
#include "shm_regions.h"

#include <rdma/fi_errno.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <thread>

namespace rc::transport::detail {

namespace {
// What one queued message costs beyond its bytes (map node, vector header),
// so that a flood of empty messages is bounded as well.
constexpr uint64_t kQueuedMessageOverhead = 128;
// Longest sleep on a doorbell: keep-alives go out every 300 ms by default.
constexpr int kDoorbellNapMs = 50;
// Writes smaller than this stay on the connection: the hand-off to the
// lanes' threads and their acknowledgements cost more than the extra
// streams save. At 256 KiB a 1B model's 513 KB of logits a token went by
// lanes and tg128 over tcp fell from 819 to 639 t/s (docs/transport.md,
// "Lanes"); rc-server's read-back pieces are 1 MiB.
constexpr uint64_t kLaneMinBytes = 1 << 20;
// How long a server waits for the lanes it offered (a client dials them
// right after the Accept).
constexpr int kLaneCollectMs = 3000;

int msSince(Clock::time_point t, Clock::time_point now) {
  return static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now - t).count());
}

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

bool connectionErrno(int e) {
  switch (-e) {
  case FI_ECONNREFUSED:
  case FI_ECONNRESET:
  case FI_ECONNABORTED:
  case FI_ENOTCONN:
  case FI_EHOSTUNREACH:
  case FI_ESHUTDOWN:
  case EPIPE:
  case ENETUNREACH:
  case ETIMEDOUT:
    return true;
  default:
    return false;
  }
}
} // namespace

FabricConnection::FabricConnection(std::unique_ptr<Endpoint> ep)
    : ep_(std::move(ep)) {
  handler_ = [this](const FrameHeader &h, const uint8_t *p, size_t n) {
    onFrame(h, p, n);
  };
  scratch_.resize(sizeof(FrameHeader) + ep_->injectSize());
  fragHeaders_.resize(64);
  lastHeard_ = lastSent_ = lastHoldingBackSent_ = lastPidCheck_ = Clock::now();
}

FabricConnection::~FabricConnection() {
  laneStop_ = true;
  if (laneCollector_.joinable())
    laneCollector_.join();
  {
    std::lock_guard<std::mutex> g(lanesMu_);
    lanes_.reset();
  }
  keeperRemove(this);
  rescuerRemove(this);
  std::lock_guard<std::mutex> g(mu_);
  if (!ep_)
    return; // taken by takeEndpoint()
  if (connected_ && !gone_ && !peerClosed_) {
    // Orderly goodbye: tell the peer how many messages it should still
    // expect, then give queued sends a moment to drain.
    FrameHeader h{kFrameMagic, static_cast<uint16_t>(FrameType::Close),
                  0,           sendSeq_,
                  0,           0};
    // Sealed, so that nobody on the path can end the connection early
    // and have it taken for the peer's goodbye.
    std::vector<uint8_t> frame(sizeof h + kSealOverhead);
    size_t size = sizeof h;
    if (!sealer_)
      std::memcpy(frame.data(), &h, sizeof h);
    else if (sealer_->seal(h, nullptr, 0, frame.data()))
      size = frame.size();
    else
      size = 0;
    auto deadline = Clock::now() + std::chrono::milliseconds(200);
    while (size && Clock::now() < deadline) {
      long rc = ep_->inject(peer_, frame.data(), size);
      if (rc == 0)
        ringDoorbell();
      if (rc != -FI_EAGAIN)
        break;
      ep_->progress(handler_);
    }
    // Progress a little even with nothing tracked in flight: rxm may still
    // hold the injected Close (and earlier injects) in its own queue.
    auto linger = Clock::now() + std::chrono::milliseconds(2);
    while (Clock::now() < linger)
      ep_->progress(handler_);
    deadline = Clock::now() + std::chrono::milliseconds(1000);
    while (ep_->anySendBusy() && Clock::now() < deadline && !gone_) {
      if (ep_->progress(handler_) <= 0)
        std::this_thread::yield();
      maintain(Clock::now());
    }
  }
  if (connected_ && ep_->provider() == Provider::Shm &&
      peerHello_.pid == static_cast<uint32_t>(getpid()))
    parkUntilPeerCloses(std::move(ep_), peerHello_.address);
  // A peer killed without its goodbye could not remove its shm region
  // files; it never will (shm_regions.h).
  else if (connected_ && ep_->provider() == Provider::Shm)
    removeShmRegionsOf(peerHello_.pid);
}

void FabricConnection::describePeer(const Hello &h) {
  std::string address = ep_->addressText(h.address);
  peerDesc_ = std::string(ep_->provider() == Provider::Tcp ? "tcp" : "shm") +
              " peer " + address + " (host " + h.hostname + ", pid " +
              std::to_string(h.pid) + ")";
  if (ep_->provider() == Provider::Shm) {
    peerHost_ = "this host";
    return;
  }
  peerHost_ = hostOfAddressText(address);
}

Hello FabricConnection::ownHello(uint64_t nonce) const {
  Hello hello;
  hello.nonce = nonce;
  hello.pid = static_cast<uint32_t>(getpid());
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  hello.hostname = host;
  hello.address = ep_->address();
  return hello;
}

// Inserts the peer's address and remembers who it is. Caller holds mu_.
bool FabricConnection::usePeer(const Hello &peer, std::string *error) {
  if (!ep_->insertPeer(peer.address, &peer_, error))
    return false;
  peerHello_ = peer;
  describePeer(peer);
  return true;
}

void FabricConnection::activate() {
  std::lock_guard<std::mutex> g(mu_);
  connected_ = true;
  lastHeard_ = lastSent_ = Clock::now();
  if (ep_->provider() == Provider::Shm &&
      peerHello_.pid != static_cast<uint32_t>(getpid())) {
    ownLock_ = RegionLock::find(ep_->addressText(ep_->address()),
                                static_cast<uint32_t>(getpid()));
    peerLock_ =
        RegionLock::find(ep_->addressText(peerHello_.address), peerHello_.pid);
    shmPeerPid_ = peerHello_.pid;
    rescuerAdd(this);
  }
  keeperAdd(this);
}

void FabricConnection::rescueFromDeadPeer() {
  uint32_t pid = shmPeerPid_.load();
  if (!pid || !(ownLock_.taken() || peerLock_.taken())) {
    lockTakenVisits_ = 0;
    return;
  }
  // Taken at two visits in a row (a lock is held for microseconds) while
  // the peer's process is gone: the dead holds it (shm_regions.h).
  if (++lockTakenVisits_ < 2 || !processGone(pid))
    return;
  if (ownLock_.taken())
    ownLock_.release();
  if (peerLock_.taken())
    peerLock_.release();
  lockTakenVisits_ = 0;
}

std::unique_ptr<Endpoint> FabricConnection::takeEndpoint() {
  keeperRemove(this);
  rescuerRemove(this);
  std::lock_guard<std::mutex> g(mu_);
  connected_ = false;
  return std::move(ep_);
}

bool FabricConnection::finishClient(const Hello &server, std::string *error) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!usePeer(server, error))
      return false;
  }
  activate();
  return true;
}

bool FabricConnection::admitClient(const Hello &client, std::string *error) {
  std::lock_guard<std::mutex> g(mu_);
  return usePeer(client, error);
}

bool FabricConnection::handshakeClient(const std::vector<uint8_t> &listenerAddr,
                                       const std::string &urlText,
                                       Clock::time_point deadline,
                                       const AdmissionKey &admission,
                                       std::string *error) {
  std::unique_lock<std::mutex> g(mu_);
  auto fail = [&](const std::string &why) {
    if (error)
      *error = "cannot connect to " + urlText + ": " + why;
    return false;
  };
  fi_addr_t listener;
  std::string err;
  if (!ep_->insertPeer(listenerAddr, &listener, &err))
    return fail("no listener there (" + err + ")");

  // Tracked (non-inject) sends so that a refused connection shows up as
  // an error completion instead of vanishing.
  uint64_t errorsBefore = ep_->sendErrors();
  auto post = [&](const std::vector<uint8_t> &frame, std::string *why) {
    SendSlot *slot = nullptr;
    while (!(slot = ep_->freeSlot()) && Clock::now() < deadline)
      ep_->progress(handler_);
    for (; slot;) {
      slot->copy.assign(frame.begin(), frame.end());
      long rc = ep_->sendCopy(listener, slot, frame.size());
      if (rc == 0)
        return true;
      if (rc != -FI_EAGAIN) {
        *why = fiError("fi_send", rc);
        return false;
      }
      ep_->progress(handler_);
      if (Clock::now() >= deadline)
        break;
    }
    *why = "timed out sending the connect request";
    return false;
  };
  Hello own;
  // Attempts: a second only when the listener says the first one's
  // challenge lapsed (pushed out by others' requests) and a new one may
  // pass.
  for (int attempt = 0; !accepted_; ++attempt) {
    handshakeNonce_ = std::random_device{}() ^
                      (uint64_t(std::random_device{}()) << 32) ^
                      uint64_t(getpid());
    own = ownHello(handshakeNonce_);
    own.lanes = uint8_t(tuning().tcpLanes);
    challenge_.reset();
    refusal_.reset();
    if (!post(encodeHello(FrameType::Connect, own), &err))
      return fail(err);
    while (!accepted_ && !refusal_) {
      int n = ep_->progress(handler_);
      if (n < 0)
        return fail(fiError("fi_cq_read", n));
      if (ep_->sendErrors() != errorsBefore)
        return fail("connection refused or unreachable (" + ep_->lastCqError() +
                    ")");
      if (challenge_) {
        std::vector<uint8_t> prove;
        if (!answerChallenge(admission, *challenge_, own, &prove, &err) ||
            !post(prove, &err))
          return fail(err);
        challenge_.reset();
      }
      if (Clock::now() >= deadline)
        return fail("no answer from a listener within the timeout (nothing "
                    "listening, or unreachable)");
      if (n == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (refusal_ && (!refusal_->mayRetry || attempt >= 3))
      return fail("refused admission: " + refusal_->why);
  }
  Hello server = acceptHello_;
  // A server bound to 0.0.0.0 reports that address; reach it at the
  // address we dialed instead.
  if (server.address.size() >= sizeof(sockaddr_in) &&
      listenerAddr.size() >= sizeof(sockaddr_in)) {
    sockaddr_in s, l;
    std::memcpy(&s, server.address.data(), sizeof s);
    std::memcpy(&l, listenerAddr.data(), sizeof l);
    if (s.sin_addr.s_addr == htonl(INADDR_ANY)) {
      s.sin_addr = l.sin_addr;
      std::memcpy(server.address.data(), &s, sizeof s);
    }
  }
  if (!usePeer(server, &err))
    return fail(err);
  g.unlock();
  activate();
  if (server.lanes)
    dialOfferedLanes(server, listenerAddr, deadline);
  else if (own.lanes)
    useLanes(nullptr, "the server offers no lanes");
  return true;
}

bool FabricConnection::startAnswer(const Hello &client, std::string *error) {
  std::lock_guard<std::mutex> g(mu_);
  std::string err;
  if (!usePeer(client, &err)) {
    *error = "cannot reach connecting client: " + err;
    return false;
  }
  Hello accept = ownHello(client.nonce);
  offerLanesLocked(client, &accept);
  std::vector<uint8_t> frame = encodeHello(FrameType::Accept, accept);
  answerSlot_ = ep_->freeSlot(); // a fresh endpoint: all are free
  answerSlot_->copy.assign(frame.begin(), frame.end());
  answerSize_ = frame.size();
  return true;
}

void FabricConnection::offerLanesLocked(const Hello &client, Hello *accept) {
  int width = std::min<int>(client.lanes, tuning().tcpLanes);
  sockaddr_in own{};
  if (ep_->provider() != Provider::Tcp || width <= 0 ||
      ep_->address().size() < sizeof own)
    return;
  std::memcpy(&own, ep_->address().data(), sizeof own);
  std::string err;
  laneOffer_ = LaneOffer::open(ipText(own), width, &err);
  if (!laneOffer_) {
    useLanes(nullptr, err);
    return;
  }
  accept->lanes = uint8_t(width);
  accept->lanePort = laneOffer_->port();
  accept->laneToken = laneOffer_->token();
  auto deadline = Clock::now() + std::chrono::milliseconds(kLaneCollectMs);
  laneCollector_ = std::thread([this, deadline] {
    std::string why;
    auto lanes = laneOffer_->collect(deadline, laneStop_, laneRegions_, &why);
    laneOffer_.reset(); // the port closes
    useLanes(std::move(lanes), why);
  });
}

void FabricConnection::dialOfferedLanes(const Hello &server,
                                        const std::vector<uint8_t> &dialed,
                                        Clock::time_point deadline) {
  sockaddr_in to{};
  std::memcpy(&to, dialed.data(), std::min(dialed.size(), sizeof to));
  to.sin_port = htons(server.lanePort);
  // Lanes are an optimisation: a connect timeout nearly spent still gets
  // them a moment.
  deadline = std::max(deadline, Clock::now() + std::chrono::seconds(1));
  std::string why;
  int width = std::min<int>(server.lanes, tuning().tcpLanes);
  useLanes(detail::dialLanes(to, server.laneToken, width, deadline,
                             laneRegions_, &why),
           why);
}

void FabricConnection::useLanes(std::unique_ptr<Lanes> lanes,
                                const std::string &problem) {
  std::lock_guard<std::mutex> g(lanesMu_);
  if (lanes && laneKeys_)
    lanes->seal(*laneKeys_, laneRefusalReport());
  lanes_ = std::move(lanes);
  lanesProblem_ = lanes_ ? "" : problem;
}

std::shared_ptr<Lanes> FabricConnection::workingLanes() {
  std::lock_guard<std::mutex> g(lanesMu_);
  if (lanes_ && lanes_->failed()) {
    lanesProblem_ = lanes_->failure();
    lanes_.reset();
  }
  return lanes_;
}

int FabricConnection::lanes() const {
  std::lock_guard<std::mutex> g(lanesMu_);
  return lanes_ && !lanes_->failed() ? int(lanes_->width()) : 0;
}

std::string FabricConnection::lanesProblem() const {
  std::lock_guard<std::mutex> g(lanesMu_);
  return lanes_ && lanes_->failed() ? lanes_->failure() : lanesProblem_;
}

void FabricConnection::updateLaneRegionsLocked() {
  if (ep_->provider() != Provider::Tcp)
    return; // shm has no lanes: its per-token read-backs skip this
  std::vector<LaneRegions::Region> regions;
  for (const Endpoint::ExposedRange &r : ep_->exposedRanges())
    regions.push_back({r.key, r.begin, r.size});
  laneRegions_->replace(std::move(regions), [this] {
    std::lock_guard<std::mutex> g(lanesMu_);
    if (lanes_)
      lanes_->abort("memory a lane was writing into was withdrawn");
  });
}

FabricConnection::Answer FabricConnection::continueAnswer(std::string *error) {
  {
    std::lock_guard<std::mutex> g(mu_);
    long rc = ep_->sendCopy(peer_, answerSlot_, answerSize_);
    if (rc == -FI_EAGAIN) {
      // rxm is still connecting to the client; this moves it on.
      int n = ep_->progress(handler_);
      if (n >= 0 && ep_->sendErrors() == 0)
        return Answer::Pending;
      *error = "cannot answer " + peerDesc_ + ": " +
               (n < 0 ? fiError("fi_cq_read", n) : ep_->lastCqError());
      return Answer::Failed;
    }
    if (rc) {
      *error = "cannot answer " + peerDesc_ + ": " + fiError("fi_send", rc);
      return Answer::Failed;
    }
  }
  activate();
  return Answer::Done;
}

void FabricConnection::onFrame(const FrameHeader &h, const uint8_t *payload,
                               size_t len) {
  lastHeard_ = Clock::now();
  const auto type = static_cast<FrameType>(h.type);
  const bool carriesRecords = type == FrameType::Data ||
                              type == FrameType::Write ||
                              type == FrameType::Close;
  if (carriesRecords && (h.flags & kSealed))
    return onSealedFrame(h, payload, len);
  if (carriesRecords && opener_ && !(clearAllowed_ && !sawSealed_) &&
      !(type == FrameType::Close && (h.flags & kRecordRefused)))
    return refuseRecord("a clear frame (type " + std::to_string(h.type) +
                        ") on a sealed connection");
  switch (type) {
  case FrameType::Data:
    if (opener_) // the one clear message allowed before the first sealed
      clearMessages_.insert(h.seq);
    onData(h, len, [&](uint8_t *dst) {
      if (len)
        std::memcpy(dst, payload, len);
      return true;
    });
    return;
  case FrameType::Write:
    return refuseRecord("a clear Write frame: writes travel sealed");
  case FrameType::KeepAlive:
    if (h.flags & kHoldingBack) {
      peerHeldBack_ = true;
      peerHeldBackAt_ = lastHeard_;
    }
    return;
  case FrameType::Close:
    if (h.flags & kRecordRefused) {
      // Not sealed (its sender may no longer trust its own stream), so it
      // ends the connection as an error, never as an orderly goodbye.
      markGone(peerDesc_ + " refused a record of this side: it did not open "
                           "there (changed, replayed or dropped in transit)");
      return;
    }
    peerClosed_ = true;
    peerSentCount_ = h.seq;
    return;
  case FrameType::Accept: {
    Hello hello;
    if (!connected_ && decodeHello(payload, len, &hello) &&
        hello.nonce == handshakeNonce_) {
      acceptHello_ = hello;
      accepted_ = true;
    }
    return;
  }
  case FrameType::Challenge: { // admission.h: before the Accept, if at all
    Challenge c;
    if (!connected_ && !accepted_ && decodeChallenge(h, payload, len, &c) &&
        c.requestNonce == handshakeNonce_)
      challenge_ = c;
    return;
  }
  case FrameType::Refuse: {
    Refusal r;
    if (!connected_ && !accepted_ && decodeRefusal(h, payload, len, &r) &&
        r.requestNonce == handshakeNonce_)
      refusal_ = r;
    return;
  }
  default:
    return; // unknown frame types are ignored (forward compatibility)
  }
}

void FabricConnection::onData(const FrameHeader &h, size_t len,
                              const Fill &fill) {
  if (h.seq < recvSeq_ || h.offset > h.total || len > h.total - h.offset) {
    markGone("protocol error: bad data fragment from " + peerDesc_);
    return;
  }
  // Before allocating anything for it: the size is the peer's claim.
  if (h.total > limits_.maxMessage) {
    markGone("protocol error: " + peerDesc_ + " sent a message of " +
             std::to_string(h.total) +
             " bytes; this connection takes messages of at most " +
             std::to_string(limits_.maxMessage) + " bytes");
    return;
  }
  auto twice = [&] {
    markGone("protocol error: " + peerDesc_ + " sent message " +
             std::to_string(h.seq) + " twice or with two sizes");
  };
  if (h.offset == 0 && len == h.total) { // whole message in one frame
    if (ready_.count(h.seq) || partial_.count(h.seq))
      return twice();
    if (!admitQueued(len))
      return;
    std::vector<uint8_t> &message = ready_[h.seq];
    message.resize(len);
    if (!fill(message.data()))
      ready_.erase(h.seq);
    return;
  }
  auto it = partial_.find(h.seq);
  if (it == partial_.end()) {
    if (ready_.count(h.seq))
      return twice();
    if (!admitQueued(h.total))
      return;
    it = partial_.emplace(h.seq, Partial{}).first;
    Partial &p = it->second;
    // Reuse the buffer the owner handed back with its last recv: its
    // pages are already mapped, which saves a page fault per 4 KiB.
    if (spare_.capacity() >= h.total)
      p.data.swap(spare_);
    try {
      p.data.resize(h.total);
    } catch (const std::bad_alloc &) {
      partial_.erase(it);
      queuedBytes_ -= h.total + kQueuedMessageOverhead;
      markGone("cannot allocate " + std::to_string(h.total) +
               " bytes for a message from " + peerDesc_);
      return;
    }
  } else if (it->second.data.size() != h.total) {
    return twice();
  }
  Partial &p = it->second;
  if (!fill(p.data.data() + h.offset))
    return;
  p.received += len;
  if (p.received >= h.total) {
    ready_[h.seq] = std::move(p.data);
    partial_.erase(it);
  }
}

bool FabricConnection::admitQueued(uint64_t size) {
  uint64_t cost = size + kQueuedMessageOverhead;
  // The keep-alive thread stops reading at maxQueued; what may still
  // arrive then is what the posted receive buffers hold, plus the one
  // large message the owner may be reading because it needs it next. An
  // honest peer stays within that; one that does not is cut off before
  // this side holds more.
  uint64_t cap =
      saturatingAdd(saturatingAdd(limits_.maxQueued, limits_.maxMessage),
                    ep_->receiveCapacity());
  if (queuedBytes_ <= cap && cost <= cap - queuedBytes_) {
    queuedBytes_ += cost;
    return true;
  }
  markGone("protocol error: " + peerDesc_ + " sent " +
           std::to_string(queuedBytes_ + cost) +
           " bytes ahead of what this side has read (at most " +
           std::to_string(cap) + " may be outstanding)");
  return false;
}

void FabricConnection::markGone(const std::string &why) {
  if (!gone_) {
    gone_ = true;
    goneReason_ = why;
  }
}

void FabricConnection::maintain(Clock::time_point now) {
  if (!connected_ || gone_)
    return;
  if (ep_->sendErrors() != sendErrorsSeen_) {
    sendErrorsSeen_ = ep_->sendErrors();
    if (connectionErrno(ep_->lastCqErrno()))
      markGone("connection to " + peerDesc_ + " failed: " + ep_->lastCqError());
    else
      lastError_ = "send to " + peerDesc_ + " failed: " + ep_->lastCqError();
  }
  int silent = msSince(lastHeard_, now);
  if (silent > tuning().deadMs) {
    markGone("no sign of life from " + peerDesc_ + " for " +
             std::to_string(silent) + " ms");
    return;
  }
  if (ep_->provider() == Provider::Shm && msSince(lastPidCheck_, now) >= 100) {
    lastPidCheck_ = now;
    if (processGone(peerHello_.pid)) {
      markGone("peer process " + std::to_string(peerHello_.pid) + " exited (" +
               peerDesc_ + ")");
      return;
    }
  }
  // While holding back, say so every keep-alive period even when other
  // frames (replies) go out: the peer's stalled sends wait for it.
  bool holdingBack = throttled();
  if (msSince(lastSent_, now) >= tuning().keepaliveMs ||
      (holdingBack &&
       msSince(lastHoldingBackSent_, now) >= tuning().keepaliveMs)) {
    FrameHeader h{kFrameMagic,
                  static_cast<uint16_t>(FrameType::KeepAlive),
                  static_cast<uint16_t>(holdingBack ? kHoldingBack : 0),
                  0,
                  0,
                  0};
    if (ep_->inject(peer_, &h, sizeof h) == 0) {
      lastSent_ = now;
      if (holdingBack)
        lastHoldingBackSent_ = now;
    }
  }
}

int FabricConnection::pump() {
  if (laneRefused_.exchange(false)) {
    std::unique_lock<std::mutex> g(refusalMu_);
    std::string why = laneRefusal_;
    g.unlock();
    refuseRecord(why);
  }
  int n = ep_->progress(handler_);
  if (n < 0)
    markGone("completion queue failed: " + fiError("fi_cq_read", n));
  maintain(Clock::now());
  return n;
}

bool FabricConnection::keeperTick(bool quick) {
  std::unique_lock<std::mutex> g(mu_, std::try_to_lock);
  if (!g.owns_lock())
    return false;
  if (throttled()) {
    // The owner is behind: leave the rest with the provider, so that the
    // peer's sends wait, and do not take not listening for its silence.
    lastHeard_ = Clock::now();
    maintain(lastHeard_);
    return false;
  }
  // Drain what is there (bounded), so that a peer streaming to an idle
  // owner is not throttled to one CQ batch per tick. Over shm a message
  // larger than the inject size goes through the provider's bounce buffers,
  // one at a time per peer: the peer posts the next only once this side
  // took the last, so keep looking a little after each one. Not while the
  // owner is behind (throttled): what is left waits with the provider. A
  // quick revisit holds the lock only while data is there: the owner may
  // be about to come back for it.
  const auto patience = std::chrono::microseconds(200);
  auto now = Clock::now(), until = now + std::chrono::milliseconds(5);
  auto lastWork = quick ? now - patience : now;
  bool moved = false;
  while (!throttled() && now < until) {
    if (pump() > 0) {
      lastWork = now;
      moved = true;
    } else if (now - lastWork >= patience) {
      break;
    } else {
      sched_yield();
    }
    now = Clock::now();
  }
  return moved;
}

void FabricConnection::idleWait(Clock::time_point idleSince) {
  auto idleUs = std::chrono::duration_cast<std::chrono::microseconds>(
                    Clock::now() - idleSince)
                    .count();
  if (idleUs < kSpinUs)
    return; // busy-poll: the reply is usually microseconds away
  if (idleUs < tuning().yieldUs) {
    sched_yield();
    return;
  }
  // Long waits (idle sessions, long GPU steps): sleep briefly, bounded
  // latency, the core left to others.
  sleepPrecisely(std::chrono::microseconds(idleUs < 100000 ? 20 : 100));
}

long FabricConnection::postWithRetry(const std::function<long()> &post) {
  auto idleSince = Clock::now();
  for (;;) {
    long rc = post();
    // Also when the provider is busy: over shm a large transfer in flight
    // (one at a time per peer without CMA) waits for the sleeper's progress.
    if (rc == 0 || rc == -FI_EAGAIN)
      ringDoorbell();
    if (rc != -FI_EAGAIN)
      return rc;
    if (pump() > 0)
      idleSince = Clock::now();
    if (gone_) {
      lastError_ = goneReason_;
      return -FI_ECONNABORTED;
    }
    idleWait(idleSince);
  }
}

SendSlot *FabricConnection::waitFreeSlot() {
  auto idleSince = Clock::now();
  for (;;) {
    if (SendSlot *s = ep_->freeSlot())
      return s;
    ringDoorbell(); // the slots may wait for the sleeper's progress
    if (pump() > 0)
      idleSince = Clock::now();
    if (gone_)
      return nullptr;
    idleWait(idleSince);
  }
}

Status FabricConnection::failSend(const std::string &why) {
  lastError_ = why;
  return gone_ || peerClosed_ ? Status::Closed : Status::Error;
}

Status FabricConnection::send(const void *data, size_t size) {
  std::lock_guard<std::mutex> g(mu_);
  if (!connected_)
    return failSend("send on a connection that is not connected");
  // Liveness upkeep only: a CQ read here would cost a syscall per send on
  // tcp, and completions are read by the waits anyway.
  maintain(Clock::now());
  if (gone_)
    return failSend("send: " + goneReason_);
  if (peerClosed_)
    return failSend("send to " + peerDesc_ +
                    ": the peer closed the connection");
  const uint64_t seq = sendSeq_++;
  const auto *bytes = static_cast<const uint8_t *>(data);
  FrameHeader h{
      kFrameMagic, static_cast<uint16_t>(FrameType::Data), 0, seq, size, 0};
  lastSent_ = Clock::now();
  if (sealer_)
    return sendSealedLocked(h, bytes, size, "send");

  if (sizeof h + size <= ep_->injectSize()) {
    // Smallest messages: inject, no completion to wait for.
    std::memcpy(scratch_.data(), &h, sizeof h);
    if (size)
      std::memcpy(scratch_.data() + sizeof h, bytes, size);
    long rc = postWithRetry(
        [&] { return ep_->inject(peer_, scratch_.data(), sizeof h + size); });
    return rc ? failSend(gone_ ? "send: " + goneReason_
                               : "send to " + peerDesc_ + ": " +
                                     fiError("fi_inject", rc))
              : Status::Ok;
  }
  if (sizeof h + size <= Endpoint::kCopySendMax) {
    // Small: copy once into a send slot and return without waiting, so the
    // caller keeps issuing while the provider sends.
    SendSlot *slot = waitFreeSlot();
    if (!slot)
      return failSend("send: " + goneReason_);
    slot->copy.resize(Endpoint::kCopySendMax);
    std::memcpy(slot->copy.data(), &h, sizeof h);
    std::memcpy(slot->copy.data() + sizeof h, bytes, size);
    long rc = postWithRetry(
        [&] { return ep_->sendCopy(peer_, slot, sizeof h + size); });
    return rc ? failSend(gone_ ? "send: " + goneReason_
                               : "send to " + peerDesc_ + ": " +
                                     fiError("fi_send", rc))
              : Status::Ok;
  }
  // Large: fragments straight from the caller's memory (header + payload
  // as a 2-entry iov), then wait until all are done so the caller may reuse
  // its buffer on return.
  const bool zeroCopy = ep_->iovLimit() >= 2;
  return postPieces(
      size, "send", zeroCopy ? "fi_sendv" : "fi_send", StallBound::LivePeer,
      [&](SendSlot *slot, uint64_t off, size_t len) {
        FrameHeader fh = h;
        fh.offset = off;
        if (zeroCopy) {
          FrameHeader &kept = fragHeaders_[slot->ctx.index];
          kept = fh;
          iovec iov[2] = {{&kept, sizeof kept},
                          {const_cast<uint8_t *>(bytes + off), len}};
          return ep_->sendIov(peer_, slot, iov, 2);
        }
        slot->copy.resize(sizeof fh + kFragmentPayload);
        std::memcpy(slot->copy.data(), &fh, sizeof fh);
        std::memcpy(slot->copy.data() + sizeof fh, bytes + off, len);
        return ep_->sendCopy(peer_, slot, sizeof fh + len);
      });
}

Status FabricConnection::postPieces(
    uint64_t size, const char *what, const char *call, StallBound bound,
    const std::function<long(SendSlot *, uint64_t, size_t)> &post) {
  uint64_t errorsBefore = ep_->sendErrors();
  std::vector<SendSlot *> inFlight;
  for (uint64_t off = 0; off < size;) {
    size_t len =
        static_cast<size_t>(std::min<uint64_t>(kFragmentPayload, size - off));
    SendSlot *slot = waitFreeSlot();
    if (!slot)
      return failSend(std::string(what) + ": " + goneReason_);
    long rc = postWithRetry([&] { return post(slot, off, len); });
    if (rc)
      return failSend(gone_ ? std::string(what) + ": " + goneReason_
                            : std::string(what) + " to " + peerDesc_ + ": " +
                                  fiError(call, rc));
    inFlight.push_back(slot);
    off += len;
  }
  return waitSlotsDone(inFlight, errorsBefore, what, bound);
}

Status FabricConnection::waitSlotsDone(const std::vector<SendSlot *> &inFlight,
                                       uint64_t errorsBefore, const char *what,
                                       StallBound bound) {
  auto idleSince = Clock::now();
  // A piece that never completes would hold this thread forever (shm: a
  // write naming memory the peer never exposed, which a hostile client can
  // ask for), so the connection ends after a bound (StallBound says which).
  auto progressSince = idleSince;
  size_t busyBefore = inFlight.size() + 1;
  for (;;) {
    size_t busy = 0;
    for (SendSlot *s : inFlight)
      busy += s->busy;
    if (!busy)
      break;
    if (busy < busyBefore)
      busyBefore = busy, progressSince = Clock::now();
    ringDoorbell(); // a transfer may need the sleeper's progress
    if (pump() > 0)
      idleSince = Clock::now();
    auto now = Clock::now();
    int stalled = msSince(progressSince, now);
    // A peer that said within the liveness window that it holds back
    // (its owner is busy, its queue full), or any live peer for a send,
    // gets the longer bound.
    bool heldBack =
        peerHeldBack_ && msSince(peerHeldBackAt_, now) <= tuning().deadMs;
    bool alive = msSince(lastHeard_, now) <= tuning().deadMs;
    bool patient = heldBack || (bound == StallBound::LivePeer && alive);
    if (!gone_ && stalled > (patient ? tuning().heldBackMs : tuning().deadMs))
      markGone(std::string(what) + " to " + peerDesc_ + " made no progress " +
               "for " + std::to_string(stalled) + " ms " +
               (heldBack  ? "(the peer holds back what it receives)"
                : patient ? "(the peer is alive but reads nothing)"
                          : "(the peer refused it or stopped reading)"));
    if (gone_)
      return failSend(std::string(what) + ": " + goneReason_);
    idleWait(idleSince);
  }
  if (ep_->sendErrors() != errorsBefore)
    return failSend(std::string(what) + " to " + peerDesc_ +
                    " failed: " + ep_->lastCqError());
  return Status::Ok;
}

bool FabricConnection::sameHost() const {
  std::lock_guard<std::mutex> g(mu_);
  return ep_ && ep_->provider() == Provider::Shm;
}

void FabricConnection::limitReceive(const ReceiveLimits &limits) {
  std::lock_guard<std::mutex> g(mu_);
  limits_ = limits;
}

uint64_t FabricConnection::queuedBytes() const {
  std::lock_guard<std::mutex> g(mu_);
  return queuedBytes_;
}

bool FabricConnection::exposeForWrite(void *buf, size_t size,
                                      RemoteRegion *out) {
  std::lock_guard<std::mutex> g(mu_);
  if (!connected_ || gone_ || !buf || size == 0)
    return false;
  long rc = ep_->exposeForWrite(buf, size, &out->addr, &out->key);
  if (rc)
    lastError_ = fiError("fi_mr_reg", rc);
  else
    updateLaneRegionsLocked();
  return rc == 0;
}

void FabricConnection::release(const RemoteRegion &region) {
  std::lock_guard<std::mutex> g(mu_);
  if (ep_) {
    ep_->release(region.key);
    updateLaneRegionsLocked();
  }
}

void FabricConnection::withdraw(void *buf, size_t size) {
  std::lock_guard<std::mutex> g(mu_);
  if (ep_) {
    ep_->withdraw(buf, size);
    updateLaneRegionsLocked();
  }
}

Status FabricConnection::writeRemote(const void *data, size_t size,
                                     const RemoteRegion &dst) {
  return writeRemoteAll({{data, size, dst}});
}

Status
FabricConnection::writeRemoteAll(const std::vector<RemoteWrite> &writes) {
  uint64_t total = 0;
  for (const RemoteWrite &w : writes)
    total += w.size;
  const uint64_t laneMin = sealed() ? tuning().sealedLaneMin : kLaneMinBytes;
  std::shared_ptr<Lanes> lanes = total >= laneMin ? workingLanes() : nullptr;
  // Over a sealed connection only sealed lanes carry writes.
  if (lanes && lanes->sealed() != sealed())
    lanes = nullptr;
  if (lanes) {
    std::vector<LaneWrite> pieces;
    for (const RemoteWrite &w : writes)
      pieces.push_back({static_cast<const uint8_t *>(w.data), w.size, w.dst.key,
                        w.dst.addr});
    std::string why;
    // Without the connection's lock: its keep-alive thread goes on, and
    // peerAlive() tells when to give up.
    if (lanes->write(pieces, [this] { return peerAlive(); }, &why))
      return Status::Ok;
    // The same bytes to the same places again, over the connection.
  }
  std::lock_guard<std::mutex> g(mu_);
  return writeOverConnectionLocked(writes);
}

Status FabricConnection::writeOverConnectionLocked(
    const std::vector<RemoteWrite> &writes) {
  if (!connected_)
    return failSend("write on a connection that is not connected");
  if (sealer_) {
    // No fi_write: the peer registered nothing with the provider. Write
    // frames carry the bytes, sealed, in order with the messages after.
    for (const RemoteWrite &w : writes) {
      if (gone_)
        return failSend("write: " + goneReason_);
      lastSent_ = Clock::now();
      FrameHeader h{kFrameMagic, static_cast<uint16_t>(FrameType::Write),
                    0,           w.dst.key,
                    w.size,      w.dst.addr};
      if (Status s = sendSealedLocked(h, static_cast<const uint8_t *>(w.data),
                                      w.size, "write");
          s != Status::Ok)
        return s;
    }
    return Status::Ok;
  }
  if (!ep_->rmaCapable())
    return failSend("write to " + peerDesc_ + ": the provider offers no RMA");
  // Pieces of one fragment's size: within every provider's RMA limit.
  // Over shm a write naming memory the peer never exposed never completes
  // while the peer lives; over tcp it completes (the peer drops it), so a
  // tcp write may wait for a live peer like a send.
  StallBound bound = ep_->provider() == Provider::Shm ? StallBound::Liveness
                                                      : StallBound::LivePeer;
  for (const RemoteWrite &w : writes) {
    if (gone_)
      return failSend("write: " + goneReason_);
    lastSent_ = Clock::now();
    const auto *bytes = static_cast<const uint8_t *>(w.data);
    Status s = postPieces(w.size, "write", "fi_write", bound,
                          [&](SendSlot *slot, uint64_t off, size_t len) {
                            return ep_->write(peer_, slot, bytes + off, len,
                                              w.dst.addr + off, w.dst.key);
                          });
    if (s != Status::Ok)
      return s;
  }
  return Status::Ok;
}

Status FabricConnection::recv(std::vector<uint8_t> &message, int timeoutMs) {
  std::lock_guard<std::mutex> g(mu_);
  if (!connected_) {
    lastError_ = "recv on a connection that is not connected";
    return Status::Error;
  }
  const auto start = Clock::now();
  auto idleSince = start;
  for (;;) {
    auto it = ready_.find(recvSeq_);
    if (it != ready_.end()) {
      lastSealed_ = opener_ && !clearMessages_.erase(recvSeq_);
      if (opener_ && !lastSealed_)
        clearAllowed_ = false; // the one clear message was taken
      message.swap(it->second);
      queuedBytes_ -= message.size() + kQueuedMessageOverhead;
      // Keep the caller's old buffer if it is big: the next large message
      // is reassembled into it.
      if (it->second.capacity() >= kFragmentPayload &&
          it->second.capacity() > spare_.capacity())
        spare_.swap(it->second);
      ready_.erase(it);
      ++recvSeq_;
      return Status::Ok;
    }
    if (peerClosed_ && recvSeq_ >= peerSentCount_) {
      lastError_ = peerDesc_ + " closed the connection";
      return Status::Closed;
    }
    if (gone_) {
      lastError_ = goneReason_;
      return Status::Closed;
    }
    if (!opener_ && !heldSealed_.empty()) {
      lastError_ = peerDesc_ + " seals what it sends, but this side has no "
                               "keys (the handshake said the connection "
                               "stays clear: changed in transit?)";
      return Status::Error;
    }
    if (pump() > 0) {
      idleSince = Clock::now();
      continue;
    }
    auto now = Clock::now();
    if (timeoutMs >= 0 && msSince(start, now) >= timeoutMs) {
      lastError_ = "no message from " + peerDesc_ + " within " +
                   std::to_string(timeoutMs) + " ms";
      return Status::Timeout;
    }
    if (sleepsOnDoorbell_ &&
        now - idleSince >= std::chrono::microseconds(tuning().yieldUs)) {
      auto until = timeoutMs >= 0 ? start + std::chrono::milliseconds(timeoutMs)
                                  : Clock::time_point::max();
      if (sleepOnDoorbell(until) > 0)
        idleSince = Clock::now();
      continue;
    }
    idleWait(idleSince);
  }
}

int FabricConnection::sleepOnDoorbell(Clock::time_point until) {
  doorbell_->prepareToSleep();
  // A message posted before the doorbell was armed finds no sleeper to
  // wake: look once more.
  int n = pump();
  if (n != 0 || gone_) {
    doorbell_->cancelSleep();
    return n;
  }
  // Wake up now and then regardless, for keep-alives and liveness checks.
  int napMs = std::clamp(tuning().keepaliveMs / 2, 1, kDoorbellNapMs);
  auto wake = std::min(until, Clock::now() + std::chrono::milliseconds(napMs));
  auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(wake - Clock::now())
          .count();
  if (us > 0)
    doorbell_->sleep(us);
  else
    doorbell_->cancelSleep();
  return 0;
}

// Without the lock: recv holds it while it sleeps. The doorbell is set
// before the connection is handed out and lives as long as it.
Doorbell::Counts FabricConnection::doorbellCounts() const {
  return doorbell_ ? doorbell_->counts() : Doorbell::Counts();
}

void FabricConnection::useDoorbell(std::unique_ptr<Doorbell> bell,
                                   bool sleeper) {
  std::lock_guard<std::mutex> g(mu_);
  doorbell_ = std::move(bell);
  sleepsOnDoorbell_ = doorbell_ && sleeper;
}

bool FabricConnection::peerAlive() {
  std::lock_guard<std::mutex> g(mu_);
  pump();
  if (gone_)
    lastError_ = goneReason_;
  return connected_ && !gone_ && !peerClosed_;
}

std::string FabricConnection::peerDescription() const {
  std::lock_guard<std::mutex> g(mu_);
  return peerDesc_;
}

std::string FabricConnection::peerHost() const {
  std::lock_guard<std::mutex> g(mu_);
  return peerHost_;
}

bool FabricConnection::peerUid(uint32_t *uid) const {
  std::lock_guard<std::mutex> g(mu_);
  if (hasPeerUid_)
    *uid = peerUid_;
  return hasPeerUid_;
}

void FabricConnection::setPeerUid(uint32_t uid) {
  std::lock_guard<std::mutex> g(mu_);
  hasPeerUid_ = true;
  peerUid_ = uid;
}

std::string FabricConnection::lastError() const {
  std::lock_guard<std::mutex> g(mu_);
  return lastError_;
}

// ---- Sealing (docs/transport-internals/connections.md, "Sealing") ----

namespace {
// Payload bytes of one sealed frame: the whole frame stays within rxm's
// eager limit, so every frame goes the provider's in-order path (larger
// messages go by rendezvous and may complete after later small ones,
// which the record numbers would refuse as reordered).
size_t sealedFramePayload() {
  size_t eager = 65600; // endpoint.cpp sets this unless the user did
  if (const char *v = std::getenv("FI_OFI_RXM_EAGER_LIMIT"))
    eager = size_t(std::strtoull(v, nullptr, 10));
  size_t room = eager > sizeof(FrameHeader) + kSealOverhead + 1024
                    ? eager - sizeof(FrameHeader) - kSealOverhead
                    : 1024;
  return std::min<size_t>(room, 64 * 1024);
}
} // namespace

bool FabricConnection::offLoopback() const {
  std::lock_guard<std::mutex> g(mu_);
  if (!ep_ || ep_->provider() != Provider::Tcp)
    return false;
  if (tuning().sealLoopback)
    return true;
  in_addr a{};
  // peerHost_ is the peer's IPv4 address over tcp; anything else (not yet
  // connected) counts as off this host.
  return inet_pton(AF_INET, peerHost_.c_str(), &a) != 1 ||
         (ntohl(a.s_addr) >> 24) != 127;
}

bool FabricConnection::seal(const SealKeys &keys, bool oneClearMessage,
                            std::string *error) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!ep_ || !connected_ || ep_->provider() != Provider::Tcp) {
      *error = "only a connected tcp connection can be sealed";
      return false;
    }
    if (sealer_) {
      *error = "the connection is sealed already";
      return false;
    }
    sealer_ = std::make_unique<FrameSealer>(keys.send);
    opener_ = std::make_unique<FrameOpener>(keys.receive);
    clearAllowed_ = oneClearMessage;
    sealedPayload_ = sealedFramePayload();
    ep_->exposeOnlyPrivately();
    updateLaneRegionsLocked();
    // Sealed frames that came before the keys, in the order they came.
    std::vector<std::vector<uint8_t>> held;
    held.swap(heldSealed_);
    heldBytes_ = 0;
    for (const std::vector<uint8_t> &f : held) {
      FrameHeader h;
      std::memcpy(&h, f.data(), sizeof h);
      onFrame(h, f.data() + sizeof h, f.size() - sizeof h);
    }
  }
  std::lock_guard<std::mutex> g(lanesMu_);
  laneKeys_ = keys;
  if (lanes_)
    lanes_->seal(keys, laneRefusalReport());
  return true;
}

std::function<void(const std::string &)> FabricConnection::laneRefusalReport() {
  return [this](const std::string &why) {
    std::lock_guard<std::mutex> g(refusalMu_);
    laneRefusal_ = why;
    laneRefused_ = true;
  };
}

bool FabricConnection::sealed() const {
  std::lock_guard<std::mutex> g(mu_);
  return sealer_ != nullptr;
}

bool FabricConnection::lastReceivedSealed() const {
  std::lock_guard<std::mutex> g(mu_);
  return lastSealed_;
}

void FabricConnection::onSealedFrame(const FrameHeader &h,
                                     const uint8_t *payload, size_t len) {
  if (gone_)
    return;
  if (!opener_) {
    // A client seals once its answer is out; the server's first sealed
    // reply may come before that. Held, within what a message may take.
    uint64_t cap = saturatingAdd(limits_.maxMessage, ep_->receiveCapacity());
    if (heldBytes_ + len + sizeof h > cap) {
      markGone(peerDesc_ + " sent " + std::to_string(heldBytes_ + len) +
               " bytes of sealed frames, but this side has no keys");
      return;
    }
    std::vector<uint8_t> frame(sizeof h + len);
    std::memcpy(frame.data(), &h, sizeof h);
    if (len)
      std::memcpy(frame.data() + sizeof h, payload, len);
    heldBytes_ += frame.size();
    heldSealed_.push_back(std::move(frame));
    return;
  }
  size_t plain = 0;
  std::string why;
  if (!opener_->check(payload, len, &plain, &why))
    return refuseRecord(why);
  auto open = [&](uint8_t *dst) {
    if (!opener_->open(h, payload, len, dst, &why)) {
      refuseRecord(why);
      return false;
    }
    sawSealed_ = true;
    return true;
  };
  switch (static_cast<FrameType>(h.type)) {
  case FrameType::Data:
    return onData(h, plain, open);
  case FrameType::Write:
    return onWrite(h, plain, open);
  default: // Close
    if (plain != 0)
      return refuseRecord("a Close frame with a payload");
    if (open(nullptr)) {
      peerClosed_ = true;
      peerSentCount_ = h.seq;
    }
    return;
  }
}

void FabricConnection::onWrite(const FrameHeader &h, size_t len,
                               const Fill &fill) {
  // Exactly what a lane may write: inside one region this side exposed.
  uint8_t *dst = laneRegions_->start(h.seq, h.offset, len);
  if (!dst) {
    markGone("protocol error: " + peerDesc_ + " wrote " + std::to_string(len) +
             " bytes at offset " + std::to_string(h.offset) + " under key " +
             std::to_string(h.seq) + ": not memory this side exposed");
    return;
  }
  fill(dst);
  laneRegions_->finish(h.seq);
}

void FabricConnection::refuseRecord(const std::string &why) {
  if (gone_)
    return;
  markGone("sealed connection: " + why + " (from " + peerDesc_ +
           "); the connection is ended");
  // Tell the peer, so that it does not take the end for silence. Not
  // sealed: this side's view of its own stream is all it can vouch for.
  FrameHeader h{kFrameMagic,
                static_cast<uint16_t>(FrameType::Close),
                kRecordRefused,
                sendSeq_,
                0,
                0};
  if (connected_ && ep_->inject(peer_, &h, sizeof h) == 0)
    ringDoorbell();
}

Status FabricConnection::sendSealedLocked(const FrameHeader &h,
                                          const uint8_t *bytes, uint64_t size,
                                          const char *what) {
  uint64_t off = 0;
  do {
    size_t len = size_t(std::min<uint64_t>(sealedPayload_, size - off));
    FrameHeader fh = h;
    fh.offset = h.offset + off;
    const size_t frame = sizeof fh + len + kSealOverhead;
    long rc;
    if (frame <= ep_->injectSize()) {
      if (!sealer_->seal(fh, bytes + off, len, scratch_.data()))
        return failSend(std::string(what) + ": sealing failed (libcrypto)");
      rc = postWithRetry(
          [&] { return ep_->inject(peer_, scratch_.data(), frame); });
    } else {
      SendSlot *slot = waitFreeSlot();
      if (!slot)
        return failSend(std::string(what) + ": " + goneReason_);
      if (slot->copy.size() < frame)
        slot->copy.resize(std::max(frame, Endpoint::kCopySendMax));
      if (!sealer_->seal(fh, bytes + off, len, slot->copy.data()))
        return failSend(std::string(what) + ": sealing failed (libcrypto)");
      rc = postWithRetry([&] { return ep_->sendCopy(peer_, slot, frame); });
    }
    if (rc)
      return failSend(gone_ ? std::string(what) + ": " + goneReason_
                            : std::string(what) + " to " + peerDesc_ + ": " +
                                  fiError("fi_send", rc));
    off += len;
  } while (off < size);
  return Status::Ok;
}

} // namespace rc::transport::detail
