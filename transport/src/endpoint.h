// One libfabric RDM endpoint with everything it needs of its own: fabric,
// domain, address vector, completion queue, a pool of posted receive buffers
// and a pool of send slots. One Endpoint is only ever used by one thread at a
// time (its owner serialises access), so the domain is opened with
// FI_THREAD_DOMAIN and no libfabric-internal locking is paid for; separate
// Endpoints are fully independent and may be used from different threads.
#ifndef RC_TRANSPORT_ENDPOINT_H
#define RC_TRANSPORT_ENDPOINT_H

#include "frame.h"
#include "url.h"

#include <rdma/fabric.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

struct fid_fabric;
struct fid_domain;
struct fid_av;
struct fid_cq;
struct fid_ep;
struct fid_mr;

namespace rc::transport::detail {

// Text for a libfabric return code: "fi_send: Connection refused (-111)".
std::string fiError(const char *call, long rc);

// The context libfabric hands back with every completion. fi_context2 must
// come first: providers that ask for FI_CONTEXT2 use that space.
struct OpContext {
  fi_context2 fi;
  enum Kind : uint8_t { Recv, Send } kind;
  uint32_t index;
};

struct SendSlot {
  OpContext ctx;
  bool busy = false;
  int error = 0;             // negative fi errno from an error completion
  std::vector<uint8_t> copy; // staging buffer for copied (small) sends
};

class Endpoint {
public:
  // Staged sends up to this size are copied and not waited for.
  static constexpr size_t kCopySendMax = 64 * 1024;

  // Opens an endpoint of the provider. With a source node/service the
  // endpoint binds there (FI_SOURCE): tcp HOST + PORT ("0" = any port), shm
  // NAME. recvSlots buffers of recvSize bytes are posted at once.
  static std::unique_ptr<Endpoint>
  open(Provider provider, const std::string &node, const std::string &service,
       size_t recvSlots, size_t recvSize, std::string *error);
  // Loads libfabric and lets it set up its providers, which its first
  // fi_getinfo in a process does (~0.3 s on these machines: it reads
  // /proc/kallsyms twice), so that the next open() is quick. A listener
  // pays this at start instead of its first client. False when the
  // provider is not there (open() then says why).
  static bool warmUp(Provider provider);
  // How many endpoints this process opened so far (tests: a listener
  // opens none for a client that proved no key).
  static uint64_t opened() { return openedCount().load(); }
  ~Endpoint();
  Endpoint(const Endpoint &) = delete;
  Endpoint &operator=(const Endpoint &) = delete;

  Provider provider() const { return provider_; }
  // Our raw address (what fi_getname returns), for the peer's fi_av_insert.
  const std::vector<uint8_t> &address() const { return address_; }
  // Human-readable form of a raw address of this provider.
  std::string addressText(const std::vector<uint8_t> &raw) const;

  // Inserts a peer address; returns false with *error on failure.
  bool insertPeer(const std::vector<uint8_t> &raw, fi_addr_t *out,
                  std::string *error);
  // Removes an address insertPeer gave (an entry inserted twice stays
  // until removed twice).
  void removePeer(fi_addr_t addr);

  // Called for every received frame (header already checked for magic and
  // size); the payload is only valid during the call.
  using FrameHandler =
      std::function<void(const FrameHeader &, const uint8_t *, size_t)>;
  // Reads completions; returns how many were handled, or a negative fi
  // errno for a fatal CQ failure. Send error completions are stored in the
  // slot (and in lastCqError()); they are not fatal here.
  int progress(const FrameHandler &onFrame);

  // Bytes the posted receive buffers hold when all are full.
  uint64_t receiveCapacity() const {
    return recv_.empty() ? 0 : uint64_t(recv_.size()) * recv_[0].size;
  }

  size_t injectSize() const { return injectSize_; }
  // fi_inject: no completion, the buffer is free on return. 0, -FI_EAGAIN or
  // another negative fi errno.
  long inject(fi_addr_t dest, const void *buf, size_t len);
  // A free send slot, or nullptr when all are in flight (progress() frees).
  SendSlot *freeSlot();
  // Posts slot->copy[0..len) (copied send) or the iov (zero-copy send; the
  // memory must stay valid until the slot is no longer busy).
  long sendCopy(fi_addr_t dest, SendSlot *slot, size_t len);
  long sendIov(fi_addr_t dest, SendSlot *slot, const struct iovec *iov,
               size_t count);
  size_t iovLimit() const { return iovLimit_; }
  bool anySendBusy() const;

  // RMA. rmaCapable: the provider granted FI_RMA.
  bool rmaCapable() const { return rma_; }
  // Registers exactly [buf, buf+len) for remote writes by the peer, or
  // reuses a registration that covers it: 0 with the address and key the
  // peer writes to, or a negative fi errno. The registration is pinned
  // until release(key) is called as often as it was handed out.
  long exposeForWrite(void *buf, size_t len, uint64_t *addr, uint64_t *key);
  // One use of the registration with this key ended; an unused one stays
  // cached (at most kExposedMax of them, least recently used dropped first).
  void release(uint64_t key);
  // Closes every registration overlapping [buf, buf+len), pinned or not.
  void withdraw(void *buf, size_t len);
  // From now on registers nothing with the provider: exposeForWrite only
  // records the range under a random key of this side's own, for writes
  // that arrive sealed (the peer's fi_write can then reach no memory of
  // this process). Registrations made before are closed.
  void exposeOnlyPrivately();
  // Every registration now: its key, first byte and size (what a lane write
  // may target, lanes.h).
  struct ExposedRange {
    uint64_t key;
    uint8_t *begin;
    uint64_t size;
  };
  std::vector<ExposedRange> exposedRanges() const;
  // fi_write of buf[0..len) to the peer's registered memory at addr/key,
  // tracked by the slot like a send.
  long write(fi_addr_t dest, SendSlot *slot, const void *buf, size_t len,
             uint64_t addr, uint64_t key);

  const std::string &lastCqError() const { return lastCqError_; }
  int lastCqErrno() const { return lastCqErrno_; }
  // How many send operations ended in an error completion so far.
  uint64_t sendErrors() const { return sendErrors_; }

private:
  Endpoint() = default;
  static std::atomic<uint64_t> &openedCount();
  bool setup(Provider provider, const std::string &node,
             const std::string &service, size_t recvSlots, size_t recvSize,
             std::string *error);
  long postRecv(uint32_t index);
  void repostPending();

  Provider provider_ = Provider::Tcp;
  fi_info *info_ = nullptr;
  fid_fabric *fabric_ = nullptr;
  fid_domain *domain_ = nullptr;
  fid_av *av_ = nullptr;
  fid_cq *cq_ = nullptr;
  fid_ep *ep_ = nullptr;
  std::vector<uint8_t> address_;
  size_t injectSize_ = 0;
  size_t iovLimit_ = 1;

  struct RecvSlot {
    OpContext ctx;
    // Not a vector: left uninitialised, pages are only touched (and count
    // in RSS) once a message that large actually arrives.
    std::unique_ptr<uint8_t[]> buf;
    size_t size = 0;
    bool posted = false;
  };
  std::vector<RecvSlot> recv_;
  std::vector<uint32_t> repost_; // slots whose fi_recv hit -FI_EAGAIN
  std::vector<SendSlot> send_;
  // A random key no registration of this endpoint has.
  uint64_t unusedKey() const;
  // Closes the least recently used unpinned registrations beyond kExposedMax.
  void dropUnused();

  // Registrations for remote writes, least recently used first. One that a
  // write may still target is pinned (uses > 0): closing it would make the
  // peer's write fail, and over tcp the provider then drops the connection.
  // tcp and shm pin no pages, so an unpinned entry outliving the
  // application's buffer is harmless: the peer only writes where this side
  // asks it to, into memory the application owns at that moment.
  struct Exposed {
    uintptr_t begin, end;
    fid_mr *mr;
    uint64_t key;
    uint32_t uses;
  };
  std::vector<Exposed> exposed_; // mr is null for private ones
  bool privateExposures_ = false;
  bool rma_ = false;
  bool virtAddr_ = false;
  std::string lastCqError_;
  int lastCqErrno_ = 0;
  uint64_t sendErrors_ = 0;
};

} // namespace rc::transport::detail

#endif
