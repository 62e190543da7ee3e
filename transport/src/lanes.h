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
#include "lane_stage.h"
#include "rc/transport.h"
#include "record_cipher.h"

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

// LanePiece::flags of a sealed piece: the bytes that follow are encrypted
// and a 16-byte tag follows them; the acknowledgement is sealed too.
constexpr uint32_t kLaneSealed = 1;

struct LanePiece {
  uint32_t magic;
  uint32_t flags;
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
  // From now on every piece and acknowledgement is sealed (record_cipher.h:
  // stream kLanePieceStream or kLaneAckStream plus the lane's index, the
  // piece's tag as its record number). A piece or acknowledgement of the
  // peer that does not open, or comes clear, ends the lanes and is reported
  // to `refused` (from a lane's thread) so that the connection ends too.
  void seal(const SealKeys &keys,
            std::function<void(const std::string &)> refused);
  bool sealed() const;

private:
  struct Slice {
    const uint8_t *data;
    uint64_t size, key, offset;
  };
  struct Writer {
    int fd;
    std::vector<Slice> queue;
    std::thread thread;
    // Once sealed: this side's pieces, the peer's acknowledgements, and
    // the stage that sends what the lane's thread sealed.
    std::unique_ptr<RecordCipher> seal, openAck;
    std::unique_ptr<LaneStage> sender;
    std::vector<uint8_t> staging; // encrypted chunks on their way out
    LanePiece head{};             // the piece header on its way out
    uint8_t tagOut[kRecordTagBytes] = {};
  };
  struct Reader {
    int fd;
    std::thread thread;
    // Once sealed: the peer's pieces, this side's acknowledgements, and the
    // stage that opens what the lane's thread received.
    std::unique_ptr<RecordCipher> open, sealAck;
    std::unique_ptr<LaneStage> opener;
    uint64_t nextTag = 0; // the writer numbers its pieces from 0
  };

  void writerLoop(Writer *w);
  void readerLoop(Reader *r);
  // One slice, encrypted from `s.data` through the staging buffers; a
  // slice of several chunks is sent by the writer's stage meanwhile.
  bool sendSealed(Writer *w, const LanePiece &h, const Slice &s,
                  std::string *why);
  // The acknowledgement of piece `tag`, sealed or not.
  bool recvAck(Writer *w, uint64_t tag, bool sealed, std::string *why);
  // A piece's bytes into `dst`, opened in place (false: not the peer's);
  // a piece of several chunks is opened by the reader's stage meanwhile.
  bool recvSealed(Reader *r, const LanePiece &h, uint8_t *dst,
                  std::string *why);
  bool sendAck(Reader *r, uint64_t tag, bool sealed, std::string *why);
  // A sealed lane's record did not open: the lanes and the connection end.
  void refuse(const std::string &why);
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
  bool sealed_ = false;
  std::function<void(const std::string &)> refused_;
  std::string failure_;
};

} // namespace rc::transport::detail

#endif
