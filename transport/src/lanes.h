// Lanes: extra plain TCP connections beside a tcp connection that carry its
// large RMA writes striped across them, one thread per lane and direction.
// One TCP stream on loopback carries 4-8 GB/s, bound by the one thread that
// copies into and out of its socket; several streams copy in parallel.
//
// A lane carries data one way: the writer sends pieces (LanePiece header,
// then the bytes), the reader receives each straight into the memory its
// side exposed (LaneRegions) and answers with a LaneAck once the bytes are
// in place. write() returns when every piece is acknowledged, so a message
// sent on the connection afterwards finds the bytes there, as after an
// fi_write. A piece outside the exposed memory ends that lane (and so the
// peer's use of the lanes); nothing is written.
#ifndef RC_TRANSPORT_LANES_H
#define RC_TRANSPORT_LANES_H

#include "lane_regions.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rc::transport::detail {

constexpr uint32_t kLaneMagic = 0x314c4352; // "RCL1" little-endian

struct LanePiece {
  uint32_t magic;
  uint32_t reserved;
  uint64_t key;    // the registration (exposeForWrite's key)
  uint64_t offset; // from the registration's start
  uint64_t size;   // bytes that follow
  uint64_t tag;    // echoed in the ack
};
static_assert(sizeof(LanePiece) == 40, "lane piece header is 40 bytes");

struct LaneAck {
  uint64_t tag;
  uint64_t status; // 0: in place
};

// One write of a batch: `size` bytes at `offset` under `key`.
struct LaneWrite {
  const uint8_t *data;
  uint64_t size;
  uint64_t key;
  uint64_t offset;
};

class Lanes {
public:
  // Takes the connected sockets: `outgoing` carry this side's writes,
  // `incoming` the peer's into `regions`.
  Lanes(std::vector<int> outgoing, std::vector<int> incoming,
        std::shared_ptr<LaneRegions> regions);
  ~Lanes(); // shuts every socket down and joins the threads
  Lanes(const Lanes &) = delete;
  Lanes &operator=(const Lanes &) = delete;

  size_t width() const { return writers_.size(); }
  // Writes every piece, split across the outgoing lanes. True once the peer
  // acknowledged all bytes in place; false with *error when a lane failed
  // or keepWaiting (asked every 50 ms while waiting) said no: the lanes
  // are then shut down and failed() stays true.
  bool write(const std::vector<LaneWrite> &writes,
             const std::function<bool()> &keepWaiting, std::string *error);
  bool failed() const;
  std::string failure() const;
  // Shuts the lanes down (a receive in progress ends at once).
  void abort(const std::string &why) { fail(why); }

private:
  struct Slice {
    const uint8_t *data;
    uint64_t size, key, offset;
  };
  struct Writer {
    int fd;
    std::vector<Slice> queue;
    std::thread thread;
  };
  struct Reader {
    int fd;
    std::thread thread;
  };

  void writerLoop(Writer *w);
  void readerLoop(Reader *r);
  // Ends the lanes (first caller's reason is kept).
  void fail(const std::string &why);
  void shutdownAll();

  const int ownerPid_; // a forked child does not have the threads
  std::shared_ptr<LaneRegions> regions_;
  std::vector<std::unique_ptr<Writer>> writers_;
  std::vector<std::unique_ptr<Reader>> readers_;

  mutable std::mutex mu_;
  std::condition_variable work_, done_;
  size_t pending_ = 0; // writers with slices of the current write
  bool stopping_ = false;
  bool failed_ = false;
  std::string failure_;
};

} // namespace rc::transport::detail

#endif
