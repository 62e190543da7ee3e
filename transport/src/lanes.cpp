#include "lanes.h"

#include "sys_error.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rc::transport::detail {

namespace {
// No lane gets less than this of a write: below it the thread hand-offs
// and the acknowledgement cost more than a stream's share saves.
constexpr uint64_t kMinSlice = 64 * 1024;

// Sends `head` then `body` whole; false with *why.
bool sendAll(int fd, const void *head, size_t headSize, const void *body,
             size_t bodySize, std::string *why) {
  iovec iov[2] = {{const_cast<void *>(head), headSize},
                  {const_cast<void *>(body), bodySize}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = bodySize ? 2 : 1;
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
  for (auto &w : writers_)
    w->thread = std::thread(&Lanes::writerLoop, this, w.get());
  for (auto &r : readers_)
    r->thread = std::thread(&Lanes::readerLoop, this, r.get());
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
  for (auto &w : writers_) {
    end(w->thread);
    close(w->fd);
  }
  for (auto &r : readers_) {
    end(r->thread);
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
    {
      std::unique_lock<std::mutex> g(mu_);
      work_.wait(g, [&] { return stopping_ || !w->queue.empty(); });
      if (stopping_)
        return;
      mine.swap(w->queue);
    }
    std::string why;
    bool ok = true;
    const uint64_t firstTag = tag;
    for (const Slice &s : mine) {
      LanePiece h{kLaneMagic, 0, s.key, s.offset, s.size, tag++};
      if (!(ok = sendAll(w->fd, &h, sizeof h, s.data, s.size, &why)))
        break;
    }
    for (uint64_t t = firstTag; ok && t < tag; ++t) {
      LaneAck ack{};
      ok = recvAll(w->fd, &ack, sizeof ack, &why);
      if (ok && (ack.tag != t || ack.status != 0)) {
        why = "the peer refused a piece";
        ok = false;
      }
    }
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
    uint8_t *dst = regions_->start(h.key, h.offset, h.size);
    if (!dst) {
      fail("the peer wrote " + std::to_string(h.size) + " bytes at offset " +
           std::to_string(h.offset) + " under key " + std::to_string(h.key) +
           " through a lane: not memory this side exposed");
      return;
    }
    bool ok = recvAll(r->fd, dst, h.size, &why);
    regions_->finish(h.key);
    LaneAck ack{h.tag, 0};
    if (!ok || !sendAll(r->fd, &ack, sizeof ack, nullptr, 0, &why)) {
      fail("lane read: " + why);
      return;
    }
  }
}

} // namespace rc::transport::detail
