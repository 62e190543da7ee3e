// FabricConnection: one end of a 1:1 connection over its own Endpoint.
// Adds what the raw endpoint lacks: message framing and reassembly, in-order
// delivery, the client/server handshake, and liveness (keep-alive frames,
// the peer's pid on shm, orderly Close).
#ifndef RC_TRANSPORT_CONNECTION_H
#define RC_TRANSPORT_CONNECTION_H

#include "admission.h"
#include "doorbell.h"
#include "endpoint.h"
#include "lane_rendezvous.h"
#include "lanes.h"
#include "rc/transport.h"
#include "sealed_frames.h"
#include "shm_regions.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace rc::transport::detail {

using Clock = std::chrono::steady_clock;

class FabricConnection : public Connection {
public:
  explicit FabricConnection(std::unique_ptr<Endpoint> ep);
  ~FabricConnection() override;

  // tcp client: asks the listener at listenerAddr for a private endpoint
  // over libfabric and waits (until deadline) for its Accept, proving
  // `admission`'s key first if the listener challenges it (admission.h).
  bool handshakeClient(const std::vector<uint8_t> &listenerAddr,
                       const std::string &urlText, Clock::time_point deadline,
                       const AdmissionKey &admission, std::string *error);
  // tcp server, in steps that never block: startAnswer takes the client
  // that sent `client` as the peer and prepares the Accept; each
  // continueAnswer tries to post it (rxm first connects to the client,
  // which takes round trips, or forever for an address that never
  // answers): Done once it went out (the connection is active), Pending
  // while it may still, Failed with *error.
  enum class Answer { Done, Pending, Failed };
  bool startAnswer(const Hello &client, std::string *error);
  Answer continueAnswer(std::string *error);

  // shm (handshake over a Unix socket, see unix_rendezvous.h).
  // The hello this side sends.
  Hello ownHello(uint64_t nonce) const;
  // Client: the server answered with `server`: start using it.
  bool finishClient(const Hello &server, std::string *error);
  // Server: admit `client` (maps its region while it waits for our reply);
  // call activate() once the reply went out.
  bool admitClient(const Hello &client, std::string *error);
  void activate();
  // Takes the endpoint away (the connection is unusable afterwards).
  std::unique_ptr<Endpoint> takeEndpoint();
  // shm: the client rings `bell` after each post; the server (sleeper)
  // sleeps on it while idle in recv (doorbell.h).
  void useDoorbell(std::unique_ptr<Doorbell> bell, bool sleeper);
  // What this side's doorbell recorded (zeros without one).
  Doorbell::Counts doorbellCounts() const;

  Status send(const void *data, size_t size) override;
  Status recv(std::vector<uint8_t> &message, int timeoutMs) override;
  bool peerAlive() override;
  std::string peerDescription() const override;
  std::string lastError() const override;
  bool sameHost() const override;
  std::string peerHost() const override;
  bool peerUid(uint32_t *uid) const override;
  // shm server: the client's user id from its handshake socket.
  void setPeerUid(uint32_t uid);
  void limitReceive(const ReceiveLimits &limits) override;
  // Bytes received and held for recv() (queued messages, partly
  // reassembled ones at their announced size), for tests.
  uint64_t queuedBytes() const;
  bool exposeForWrite(void *buf, size_t size, RemoteRegion *out) override;
  void release(const RemoteRegion &region) override;
  void withdraw(void *buf, size_t size) override;
  Status writeRemote(const void *data, size_t size,
                     const RemoteRegion &dst) override;
  Status writeRemoteAll(const std::vector<RemoteWrite> &writes) override;
  int lanes() const override;
  // Why this tcp connection has no lanes (empty while it has them or while
  // they may still come), for tests and logs.
  std::string lanesProblem() const;
  bool offLoopback() const override;
  bool seal(const SealKeys &keys, bool oneClearMessage,
            std::string *error) override;
  bool sealed() const override;
  bool lastReceivedSealed() const override;

  // Called by the keep-alive thread: does a progress pass if the owner is
  // not inside a call right now (it then does the same work itself).
  // `quick`: a revisit 1 ms after a pass that moved data, which ends as
  // soon as nothing more is there. Returns whether it took anything from
  // the provider.
  bool keeperTick(bool quick);
  // Called by the rescuer thread (keeper.h), without the connection's lock
  // (whoever holds it may be the one stuck): over shm, releases a region
  // lock that the peer's process died holding (shm_regions.h).
  void rescueFromDeadPeer();

private:
  void onFrame(const FrameHeader &h, const uint8_t *payload, size_t len);
  // Places a Data fragment of `len` bytes: fill(dst) copies or opens them
  // into where they go, false when they do not open (the connection is
  // then gone).
  using Fill = std::function<bool(uint8_t *dst)>;
  void onData(const FrameHeader &h, size_t len, const Fill &fill);
  // Sealing (sealed_frames.h). A sealed frame: opened, or held until
  // seal() while this side has no keys yet.
  void onSealedFrame(const FrameHeader &h, const uint8_t *payload, size_t len);
  // A Write frame's bytes, into memory this side exposed.
  void onWrite(const FrameHeader &h, size_t len, const Fill &fill);
  // Ends the connection because a record of the peer did not open (or came
  // clear), and tells the peer so.
  void refuseRecord(const std::string &why);
  // What a sealed lane calls (from its thread) when a record of the peer
  // did not open: the next progress pass ends the connection.
  std::function<void(const std::string &)> laneRefusalReport();
  // Sends `size` bytes as sealed frames like `h` (offset counted on from
  // h.offset), each small enough for the provider's eager path so that
  // they arrive in the order sealed; returns once all are posted.
  Status sendSealedLocked(const FrameHeader &h, const uint8_t *bytes,
                          uint64_t size, const char *what);
  // Adds a message of `size` bytes to queuedBytes_; false (the connection
  // is gone, naming the bound) when that passes what the limits allow.
  bool admitQueued(uint64_t size);
  // recv() stops reading ahead: the owner is busy and enough is queued.
  bool throttled() const { return queuedBytes_ >= limits_.maxQueued; }
  // One progress pass plus keep-alive/liveness upkeep. >0 if it did work.
  int pump();
  void maintain(Clock::time_point now);
  void markGone(const std::string &why);
  Status failSend(const std::string &why);
  // Posts one frame, retrying -FI_EAGAIN while progressing. 0 or neg errno.
  long postWithRetry(const std::function<long()> &post);
  SendSlot *waitFreeSlot();
  // How long a transfer of which no piece completes may wait (docs/
  // transport.md, "Liveness"): Liveness, the liveness window unless the
  // peer says it holds back (then RC_TRANSPORT_HELD_BACK_MS); LivePeer,
  // that long while the peer is heard from at all. Sends wait for a live
  // peer: a busy or starved one reads slowly but does read (a 4 GiB copy
  // to rc-server on a loaded 2-core machine stalled 2.5 s and more and
  // then completed). RMA writes over shm keep the short bound: one naming
  // memory the peer never exposed never completes while the peer lives.
  enum class StallBound { Liveness, LivePeer };
  // Posts `size` bytes in fragment-sized pieces, post(slot, offset, length)
  // for each (retried on -FI_EAGAIN), then waits for all of them; `what`
  // ("send", "write") and `call` name the operation in errors.
  Status
  postPieces(uint64_t size, const char *what, const char *call,
             StallBound bound,
             const std::function<long(SendSlot *, uint64_t, size_t)> &post);
  // Waits until every slot in `inFlight` completed; Ok unless the peer went
  // away, stalled past `bound`, or a completion reported an error (`what`
  // names the operation).
  Status waitSlotsDone(const std::vector<SendSlot *> &inFlight,
                       uint64_t errorsBefore, const char *what,
                       StallBound bound);
  void idleWait(Clock::time_point idleSince);
  // recv's idle wait on a sleeper's doorbell: after yieldUs idle,
  // sleeps until rung (at most until `until`). >0 if messages arrived.
  int sleepOnDoorbell(Clock::time_point until);
  void ringDoorbell() {
    if (doorbell_ && !sleepsOnDoorbell_)
      doorbell_->ring();
  }
  void describePeer(const Hello &h);
  bool usePeer(const Hello &peer, std::string *error);
  // tcp lanes (lanes.h). Server: opens the offer the Accept announces and
  // collects the client's sockets on a thread of its own. Client: dials
  // what the Accept offered.
  void offerLanesLocked(const Hello &client, Hello *accept);
  void dialOfferedLanes(const Hello &server, const std::vector<uint8_t> &dialed,
                        Clock::time_point deadline);
  void useLanes(std::unique_ptr<Lanes> lanes, const std::string &problem);
  // The lanes while they work; a failed set is dropped here (its writes
  // then go over the connection).
  std::shared_ptr<Lanes> workingLanes();
  // After a registration changed: what lane writes may target.
  void updateLaneRegionsLocked();
  // Writes over the connection itself, one after another (mu_ held).
  Status writeOverConnectionLocked(const std::vector<RemoteWrite> &writes);

  mutable std::mutex mu_;
  std::unique_ptr<Endpoint> ep_;
  Endpoint::FrameHandler handler_;
  fi_addr_t peer_ = FI_ADDR_UNSPEC;
  bool connected_ = false;
  Hello peerHello_;
  std::string peerDesc_ = "(not connected)";
  std::string peerHost_ = "(not connected)";
  bool hasPeerUid_ = false;
  uint32_t peerUid_ = 0;
  uint64_t handshakeNonce_ = 0;
  bool accepted_ = false;
  Hello acceptHello_;
  // tcp client: the listener's challenge or refusal of this handshake.
  std::optional<Challenge> challenge_;
  std::optional<Refusal> refusal_;
  SendSlot *answerSlot_ = nullptr; // the Accept, between the answer steps
  size_t answerSize_ = 0;

  // Sending.
  uint64_t sendSeq_ = 0;
  std::vector<uint8_t> scratch_;         // inject staging
  std::vector<FrameHeader> fragHeaders_; // per send slot, for iov sends
  uint64_t sendErrorsSeen_ = 0;

  // Receiving: messages by sequence number, delivered strictly in order.
  struct Partial {
    std::vector<uint8_t> data;
    uint64_t received = 0;
  };
  std::map<uint64_t, Partial> partial_;
  std::map<uint64_t, std::vector<uint8_t>> ready_;
  uint64_t recvSeq_ = 0;
  ReceiveLimits limits_;
  uint64_t queuedBytes_ = 0;   // ready_ and partial_, announced sizes
  std::vector<uint8_t> spare_; // recycled large buffer (see onFrame)

  std::unique_ptr<Doorbell> doorbell_;
  bool sleepsOnDoorbell_ = false;

  // shm: the two region locks the peer could die holding, the peer's pid
  // (0: not shm, or a peer in this process), and how many keep-alive
  // visits in a row found one of them taken.
  RegionLock ownLock_, peerLock_;
  std::atomic<uint32_t> shmPeerPid_{0};
  int lockTakenVisits_ = 0;

  // Liveness.
  Clock::time_point lastHeard_;
  Clock::time_point lastSent_;
  Clock::time_point lastHoldingBackSent_; // our last kHoldingBack keep-alive
  Clock::time_point lastPidCheck_;
  // When the peer last said it holds back what we send (kHoldingBack);
  // false until it first does.
  bool peerHeldBack_ = false;
  Clock::time_point peerHeldBackAt_;
  bool peerClosed_ = false;    // got Close
  uint64_t peerSentCount_ = 0; // messages the peer sent before Close
  bool gone_ = false;          // dead or failed: no more traffic
  std::string goneReason_;
  std::string lastError_;

  // Sealing: this side's records and the peer's, a clear message allowed
  // before the first sealed one (seal()'s oneClearMessage), which of the
  // queued messages came clear, sealed frames that came before the keys,
  // and how many payload bytes a sealed frame carries.
  std::unique_ptr<FrameSealer> sealer_;
  std::unique_ptr<FrameOpener> opener_;
  bool clearAllowed_ = false;
  bool sawSealed_ = false;
  std::set<uint64_t> clearMessages_;
  bool lastSealed_ = false;
  std::vector<std::vector<uint8_t>> heldSealed_;
  uint64_t heldBytes_ = 0;
  size_t sealedPayload_ = 0;
  // A lane's reader found a record of the peer that did not open (set by
  // the lane's thread, acted on by the next progress pass).
  std::atomic<bool> laneRefused_{false};
  std::mutex refusalMu_; // not lanesMu_: lanes are joined under that
  std::string laneRefusal_;

  // tcp lanes: the memory they may write (shared with the lanes' readers),
  // the lanes themselves once up, and on the server the offer and the
  // thread collecting them.
  std::shared_ptr<LaneRegions> laneRegions_ = std::make_shared<LaneRegions>();
  mutable std::mutex lanesMu_;
  std::shared_ptr<Lanes> lanes_;
  std::optional<SealKeys> laneKeys_; // lanes that come later are sealed too
  std::string lanesProblem_;
  std::unique_ptr<LaneOffer> laneOffer_;
  std::thread laneCollector_;
  std::atomic<bool> laneStop_{false};
};

} // namespace rc::transport::detail

#endif
