#include "lanes.h"

#include "sys_error.h"
#include "thread_name.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace rc::transport::detail {

namespace {
// No lane gets less than this of a write: below it the thread hand-offs
// and the acknowledgement cost more than a stream's share saves.
constexpr uint64_t kMinSlice = 64 * 1024;
// A sealed slice is encrypted (and opened) in pieces of this size: small
// enough to stay in the core's cache between the cipher and the socket.
constexpr size_t kSealChunk = 128 * 1024;
// Staging buffers per sealed writer: the lane's thread seals into one while
// its stage sends the others (kSealDepth x kSealChunk stays within L2).
constexpr size_t kSealDepth = 4;

// Sends the `count` parts whole (`iov` is used up); false with *why.
bool sendParts(int fd, iovec *iov, size_t count, std::string *why) {
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = count;
  while (msg.msg_iovlen) {
    ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      *why = sysError("send");
      return false;
    }
    auto left = size_t(n);
    while (msg.msg_iovlen && left >= msg.msg_iov->iov_len) {
      left -= msg.msg_iov->iov_len;
      ++msg.msg_iov;
      --msg.msg_iovlen;
    }
    if (msg.msg_iovlen) {
      msg.msg_iov->iov_base =
          static_cast<uint8_t *>(msg.msg_iov->iov_base) + left;
      msg.msg_iov->iov_len -= left;
    }
  }
  return true;
}

// Sends `head` then `body` whole; false with *why.
bool sendAll(int fd, const void *head, size_t headSize, const void *body,
             size_t bodySize, std::string *why) {
  iovec iov[2] = {{const_cast<void *>(head), headSize},
                  {const_cast<void *>(body), bodySize}};
  return sendParts(fd, iov, bodySize ? 2 : 1, why);
}

// Receives exactly `size` bytes; false with *why ("closed" at a clean end
// before the first byte).
bool recvAll(int fd, void *buf, size_t size, std::string *why) {
  auto *p = static_cast<uint8_t *>(buf);
  for (size_t got = 0; got < size;) {
    ssize_t n = recv(fd, p + got, size - got, MSG_WAITALL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      *why = sysError("recv");
      return false;
    }
    if (n == 0) {
      *why =
          got ? "the peer closed the lane in the middle of a piece" : "closed";
      return false;
    }
    got += size_t(n);
  }
  return true;
}
} // namespace

Lanes::Lanes(std::vector<int> outgoing, std::vector<int> incoming,
             std::shared_ptr<LaneRegions> regions)
    : ownerPid_(getpid()), regions_(std::move(regions)) {
  for (int fd : outgoing) {
    writers_.push_back(std::make_unique<Writer>());
    writers_.back()->fd = fd;
  }
  for (int fd : incoming) {
    readers_.push_back(std::make_unique<Reader>());
    readers_.back()->fd = fd;
  }
  for (size_t i = 0; i < writers_.size(); ++i) {
    writers_[i]->thread =
        std::thread(&Lanes::writerLoop, this, writers_[i].get());
    nameThread(writers_[i]->thread, "rc-lane-w", i);
  }
  for (size_t i = 0; i < readers_.size(); ++i) {
    readers_[i]->thread =
        std::thread(&Lanes::readerLoop, this, readers_[i].get());
    nameThread(readers_[i]->thread, "rc-lane-r", i);
  }
}

Lanes::~Lanes() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  shutdownAll();
  bool forked = getpid() != ownerPid_;
  auto end = [&](std::thread &t) {
    if (forked)
      new std::thread(std::move(t)); // not ours to join: left alone
    else if (t.joinable())
      t.join();
  };
  // A stage's thread is not the forked child's either: left alone too.
  auto endStage = [&](std::unique_ptr<LaneStage> &stage) {
    if (forked)
      (void)stage.release();
  };
  for (auto &w : writers_) {
    end(w->thread);
    endStage(w->sender);
    close(w->fd);
  }
  for (auto &r : readers_) {
    end(r->thread);
    endStage(r->opener);
    close(r->fd);
  }
}

void Lanes::shutdownAll() {
  for (auto &w : writers_)
    shutdown(w->fd, SHUT_RDWR);
  for (auto &r : readers_)
    shutdown(r->fd, SHUT_RDWR);
}

void Lanes::fail(const std::string &why) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!failed_) {
      failed_ = true;
      failure_ = why;
    }
  }
  shutdownAll();
  done_.notify_all();
}

void Lanes::seal(const SealKeys &keys,
                 std::function<void(const std::string &)> refused) {
  std::lock_guard<std::mutex> g(mu_);
  for (size_t i = 0; i < writers_.size(); ++i) {
    writers_[i]->seal = std::make_unique<RecordCipher>(
        keys.send, kLanePieceStream | uint32_t(i), RecordCipher::Mode::Seal);
    writers_[i]->openAck = std::make_unique<RecordCipher>(
        keys.receive, kLaneAckStream | uint32_t(i), RecordCipher::Mode::Open);
    writers_[i]->sender = std::make_unique<LaneStage>("rc-send-", i);
    writers_[i]->staging.resize(kSealDepth * kSealChunk);
  }
  for (size_t i = 0; i < readers_.size(); ++i) {
    readers_[i]->open = std::make_unique<RecordCipher>(
        keys.receive, kLanePieceStream | uint32_t(i), RecordCipher::Mode::Open);
    readers_[i]->sealAck = std::make_unique<RecordCipher>(
        keys.send, kLaneAckStream | uint32_t(i), RecordCipher::Mode::Seal);
    readers_[i]->opener = std::make_unique<LaneStage>("rc-open-", i);
  }
  refused_ = std::move(refused);
  sealed_ = true;
}

bool Lanes::sealed() const {
  std::lock_guard<std::mutex> g(mu_);
  return sealed_;
}

void Lanes::refuse(const std::string &why) {
  std::function<void(const std::string &)> report;
  {
    std::lock_guard<std::mutex> g(mu_);
    report = refused_;
  }
  fail(why);
  if (report)
    report(why);
}

bool Lanes::failed() const {
  std::lock_guard<std::mutex> g(mu_);
  return failed_;
}

std::string Lanes::failure() const {
  std::lock_guard<std::mutex> g(mu_);
  return failure_;
}

bool Lanes::write(const std::vector<LaneWrite> &writes,
                  const std::function<bool()> &keepWaiting,
                  std::string *error) {
  uint64_t total = 0;
  for (const LaneWrite &w : writes)
    total += w.size;
  std::unique_lock<std::mutex> g(mu_);
  if (failed_ || writers_.empty()) {
    *error = failed_ ? failure_ : "no lanes";
    return false;
  }
  // Even shares, each slice within one write; the least loaded lane
  // takes the next slice.
  uint64_t share = (total + writers_.size() - 1) / writers_.size();
  share = std::max(kMinSlice, (share + 4095) / 4096 * 4096);
  std::vector<uint64_t> load(writers_.size(), 0);
  for (const LaneWrite &w : writes)
    for (uint64_t off = 0; off < w.size; off += share) {
      size_t lane =
          size_t(std::min_element(load.begin(), load.end()) - load.begin());
      uint64_t n = std::min(share, w.size - off);
      writers_[lane]->queue.push_back({w.data + off, n, w.key, w.offset + off});
      load[lane] += n;
    }
  for (uint64_t bytes : load)
    pending_ += bytes > 0;
  work_.notify_all();
  while (pending_ > 0) {
    if (done_.wait_for(g, std::chrono::milliseconds(50)) ==
        std::cv_status::no_timeout)
      continue;
    g.unlock();
    bool wait = keepWaiting();
    g.lock();
    if (!wait && !failed_) {
      failed_ = true;
      failure_ = "the connection ended during a lane write";
      shutdownAll();
    }
  }
  if (failed_) {
    *error = failure_;
    return false;
  }
  return true;
}

void Lanes::writerLoop(Writer *w) {
  uint64_t tag = 0;
  for (;;) {
    std::vector<Slice> mine;
    bool sealed;
    {
      std::unique_lock<std::mutex> g(mu_);
      work_.wait(g, [&] { return stopping_ || !w->queue.empty(); });
      if (stopping_)
        return;
      mine.swap(w->queue);
      sealed = sealed_;
    }
    std::string why;
    bool ok = true;
    const uint64_t firstTag = tag;
    for (const Slice &s : mine) {
      LanePiece h{kLaneMagic, sealed ? kLaneSealed : 0, s.key, s.offset, s.size,
                  tag++};
      ok = sealed ? sendSealed(w, h, s, &why)
                  : sendAll(w->fd, &h, sizeof h, s.data, s.size, &why);
      if (!ok)
        break;
    }
    for (uint64_t t = firstTag; ok && t < tag; ++t)
      ok = recvAck(w, t, sealed, &why);
    if (!ok && why.empty())
      why = "the peer refused a piece";
    if (!ok)
      fail("lane write: " + why);
    {
      std::lock_guard<std::mutex> g(mu_);
      --pending_;
    }
    done_.notify_all();
    if (!ok)
      return;
  }
}

void Lanes::readerLoop(Reader *r) {
  for (;;) {
    LanePiece h{};
    std::string why;
    if (!recvAll(r->fd, &h, sizeof h, &why)) {
      fail(why == "closed" ? "the peer closed a lane" : "lane read: " + why);
      return;
    }
    if (h.magic != kLaneMagic) {
      fail("lane read: not a lane piece");
      return;
    }
    bool sealed;
    {
      std::lock_guard<std::mutex> g(mu_);
      sealed = sealed_;
    }
    const bool pieceSealed = h.flags & kLaneSealed;
    if (sealed && !pieceSealed)
      return refuse("a clear piece on a sealed lane");
    if (!sealed && pieceSealed)
      return fail("lane read: a sealed piece before this side has keys");
    if (sealed && h.tag != r->nextTag)
      return refuse("lane piece " + std::to_string(h.tag) +
                    " arrived where piece " + std::to_string(r->nextTag) +
                    " was due: a replayed, reordered or dropped record");
    r->nextTag = h.tag + 1;
    uint8_t *dst = regions_->start(h.key, h.offset, h.size);
    if (!dst) {
      fail("the peer wrote " + std::to_string(h.size) + " bytes at offset " +
           std::to_string(h.offset) + " under key " + std::to_string(h.key) +
           " through a lane: not memory this side exposed");
      return;
    }
    bool ok = sealed ? recvSealed(r, h, dst, &why)
                     : recvAll(r->fd, dst, h.size, &why);
    regions_->finish(h.key);
    if (!ok && why.empty())
      return; // refused: not the peer's bytes
    if (!ok || !sendAck(r, h.tag, sealed, &why)) {
      fail("lane read: " + why);
      return;
    }
  }
}

bool Lanes::sendSealed(Writer *w, const LanePiece &h, const Slice &s,
                       std::string *why) {
  const char *cipherFailed = "sealing failed (libcrypto)";
  if (!w->seal->begin(h.tag, &h, sizeof h)) {
    *why = cipherFailed;
    return false;
  }
  // A slice of one chunk goes out in one send from this thread: a hand-off
  // would only add a wake-up.
  LaneStage *stage = s.size > kSealChunk ? w->sender.get() : nullptr;
  w->head = h;
  uint64_t lastUse[kSealDepth] = {}; // the stage's step that sends a buffer
  uint64_t off = 0;
  size_t chunk = 0;
  do {
    size_t n = size_t(std::min<uint64_t>(kSealChunk, s.size - off));
    size_t slot = chunk % kSealDepth;
    uint8_t *buf = w->staging.data() + slot * kSealChunk;
    // The buffer is free once the stage sent what it held.
    if (stage && lastUse[slot] && !stage->waitFor(lastUse[slot], why))
      return stage->drain(why), false;
    if (!w->seal->update(s.data + off, buf, n) ||
        (off + n == s.size && !w->seal->finishSeal(w->tagOut))) {
      *why = cipherFailed;
      return stage ? (stage->drain(why), false) : false;
    }
    std::array<iovec, 3> parts;
    size_t count = 0;
    if (chunk == 0)
      parts[count++] = {&w->head, sizeof w->head};
    if (n)
      parts[count++] = {buf, n};
    off += n;
    if (off == s.size)
      parts[count++] = {w->tagOut, sizeof w->tagOut};
    ++chunk;
    if (!stage) {
      if (!sendParts(w->fd, parts.data(), count, why))
        return false;
      continue;
    }
    lastUse[slot] = stage->post([fd = w->fd, parts, count](std::string *why) {
      auto iov = parts; // sendParts uses its parts up
      return sendParts(fd, iov.data(), count, why);
    });
  } while (off < s.size);
  return !stage || stage->drain(why);
}

bool Lanes::recvAck(Writer *w, uint64_t tag, bool sealed, std::string *why) {
  struct {
    LaneAck ack;
    uint8_t tag[kRecordTagBytes];
  } in{};
  if (!recvAll(w->fd, &in, sealed ? sizeof in : sizeof in.ack, why))
    return false;
  if (sealed && !w->openAck->open(tag, nullptr, 0,
                                  reinterpret_cast<const uint8_t *>(&in.ack),
                                  reinterpret_cast<uint8_t *>(&in.ack),
                                  sizeof in.ack, in.tag)) {
    refuse("lane acknowledgement " + std::to_string(tag) +
           " failed authentication: changed, replayed or dropped in transit");
    *why = "the acknowledgement did not open";
    return false;
  }
  return in.ack.tag == tag && in.ack.status == 0;
}

bool Lanes::recvSealed(Reader *r, const LanePiece &h, uint8_t *dst,
                       std::string *why) {
  const char *cipherFailed = "opening failed (libcrypto)";
  RecordCipher *cipher = r->open.get();
  if (!cipher->begin(h.tag, &h, sizeof h)) {
    *why = cipherFailed;
    return false;
  }
  // Received in place a cache-sized chunk at a time; a piece of several
  // chunks is opened by the stage while the next chunk arrives.
  LaneStage *stage = h.size > kSealChunk ? r->opener.get() : nullptr;
  bool ok = true;
  for (uint64_t off = 0; ok && off < h.size;) {
    size_t n = size_t(std::min<uint64_t>(kSealChunk, h.size - off));
    uint8_t *p = dst + off;
    ok = recvAll(r->fd, p, n, why);
    if (ok && stage)
      stage->post([cipher, p, n, cipherFailed](std::string *why) {
        if (cipher->update(p, p, n))
          return true;
        *why = cipherFailed;
        return false;
      });
    else if (ok && !cipher->update(p, p, n)) {
      *why = cipherFailed;
      ok = false;
    }
    off += n;
  }
  uint8_t tag[kRecordTagBytes];
  ok = ok && recvAll(r->fd, tag, sizeof tag, why);
  // Every chunk opened (or skipped) before the memory is given back.
  std::string stageWhy;
  if (stage && !stage->drain(&stageWhy) && ok) {
    *why = stageWhy;
    ok = false;
  }
  if (!ok)
    return false;
  if (!cipher->finishOpen(tag)) {
    // What was placed is not the peer's: no acknowledgement, so the
    // writer's message that would announce it never goes out.
    refuse("lane piece " + std::to_string(h.tag) +
           " failed authentication: it was changed in transit");
    why->clear();
    return false;
  }
  return true;
}

bool Lanes::sendAck(Reader *r, uint64_t tag, bool sealed, std::string *why) {
  struct {
    LaneAck ack;
    uint8_t tag[kRecordTagBytes];
  } out{{tag, 0}, {}};
  if (!sealed)
    return sendAll(r->fd, &out.ack, sizeof out.ack, nullptr, 0, why);
  // Sealed: nobody on the path can say the bytes are in place.
  if (!r->sealAck->seal(
          tag, nullptr, 0, reinterpret_cast<const uint8_t *>(&out.ack),
          reinterpret_cast<uint8_t *>(&out.ack), sizeof out.ack, out.tag)) {
    *why = "sealing failed (libcrypto)";
    return false;
  }
  return sendAll(r->fd, &out, sizeof out, nullptr, 0, why);
}

} // namespace rc::transport::detail
