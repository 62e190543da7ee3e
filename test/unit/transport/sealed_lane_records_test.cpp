// Sealed lanes record by record (transport/src/lanes.h, "sealed"): the test
// plays the peer of one side's lanes over socket pairs and seals or opens
// each piece and acknowledgement itself, so it can send what no honest
// peer would. A piece of several chunks (sealed and opened by the lanes'
// stages while the next chunk travels) arrives whole and is acknowledged;
// a piece dropped, reordered, sent twice, cut short, changed in any chunk
// or in its header, or sealed for another lane is refused without an
// acknowledgement; a writer's pieces open under the numbers due, and a
// replayed acknowledgement ends its write.
#include "lanes.h"
#include "record_cipher.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <mutex>
#include <random>
#include <thread>

using namespace rc::transport;
using namespace rc::transport::detail;

namespace {

constexpr uint64_t kKey = 77;
constexpr size_t kChunk = 128 * 1024; // lanes.cpp's kSealChunk

TrafficKey keyFrom(uint8_t seed) {
  TrafficKey k;
  for (size_t i = 0; i < k.key.size(); ++i)
    k.key[i] = uint8_t(seed + 3 * i);
  for (size_t i = 0; i < k.iv.size(); ++i)
    k.iv[i] = uint8_t(seed * 7 + i);
  return k;
}
// The writer's pieces and the reader's acknowledgements.
const TrafficKey kPieces = keyFrom(1), kAcks = keyFrom(2);

std::vector<uint8_t> randomBytes(size_t size, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<uint8_t> v(size);
  for (auto &b : v)
    b = uint8_t(gen());
  return v;
}

// A sealed piece as a lane's writer sends it: header, ciphertext, tag.
std::vector<uint8_t> sealedPiece(uint32_t lane, uint64_t number,
                                 uint64_t offset,
                                 const std::vector<uint8_t> &data) {
  LanePiece h{kLaneMagic, kLaneSealed, kKey, offset, data.size(), number};
  std::vector<uint8_t> out(sizeof h + data.size() + kRecordTagBytes);
  std::memcpy(out.data(), &h, sizeof h);
  RecordCipher c(kPieces, kLanePieceStream | lane, RecordCipher::Mode::Seal);
  EXPECT_TRUE(c.seal(number, &h, sizeof h, data.data(), out.data() + sizeof h,
                     data.size(), out.data() + sizeof h + data.size()));
  return out;
}

bool sendAllOf(int fd, const std::vector<uint8_t> &bytes, size_t size) {
  for (size_t sent = 0; sent < size;) {
    ssize_t n = send(fd, bytes.data() + sent, size - sent, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    sent += size_t(n);
  }
  return true;
}

// Exactly `size` bytes within `ms`; false at the end of the stream or the
// deadline.
bool recvWithin(int fd, void *buf, size_t size, int ms = 5000) {
  auto *p = static_cast<uint8_t *>(buf);
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (size_t got = 0; got < size;) {
    pollfd pfd{fd, POLLIN, 0};
    int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                       end - std::chrono::steady_clock::now())
                       .count());
    if (left <= 0 || poll(&pfd, 1, left) <= 0)
      return false;
    ssize_t n = recv(fd, p + got, size - got, 0);
    if (n <= 0)
      return false;
    got += size_t(n);
  }
  return true;
}

// The reading side of `width` sealed lanes, the test holding the writing
// end of each, with 4 MiB exposed under kKey.
struct SealedReader {
  std::vector<uint8_t> target = std::vector<uint8_t>(4 << 20, 0);
  std::shared_ptr<LaneRegions> regions = std::make_shared<LaneRegions>();
  std::unique_ptr<Lanes> lanes;
  std::vector<int> ends;
  std::mutex mu;
  std::string refusal;

  explicit SealedReader(int width) {
    std::vector<int> incoming;
    for (int i = 0; i < width; ++i) {
      int sv[2];
      EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
      incoming.push_back(sv[0]);
      ends.push_back(sv[1]);
    }
    lanes = std::make_unique<Lanes>(std::vector<int>{}, incoming, regions);
    lanes->seal(SealKeys{kAcks, kPieces}, [this](const std::string &why) {
      std::lock_guard<std::mutex> g(mu);
      refusal = why;
    });
    regions->replace({{kKey, target.data(), target.size()}}, [] {});
  }
  ~SealedReader() {
    lanes.reset();
    for (int fd : ends)
      close(fd);
  }

  // The acknowledgement of piece `number` on `lane`, opened: true when it
  // came and says the bytes are in place.
  bool acknowledged(uint32_t lane, uint64_t number) {
    struct {
      LaneAck ack;
      uint8_t tag[kRecordTagBytes];
    } in{};
    if (!recvWithin(ends[lane], &in, sizeof in))
      return false;
    RecordCipher c(kAcks, kLaneAckStream | lane, RecordCipher::Mode::Open);
    auto *a = reinterpret_cast<uint8_t *>(&in.ack);
    return c.open(number, nullptr, 0, a, a, sizeof in.ack, in.tag) &&
           in.ack.tag == number && in.ack.status == 0;
  }
  // Why the lanes refused, once they have (waits up to 5 s).
  std::string refused() {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard<std::mutex> g(mu);
        if (!refusal.empty())
          return refusal;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "(not refused)";
  }
};

TEST(SealedLanes, APieceOfManyChunksArrivesWholeAndIsAcknowledged) {
  SealedReader r(2);
  auto data = randomBytes(5 * kChunk + 12345, 1);
  auto piece = sealedPiece(1, 0, 4096, data);
  ASSERT_TRUE(sendAllOf(r.ends[1], piece, piece.size()));
  ASSERT_TRUE(r.acknowledged(1, 0));
  EXPECT_EQ(0, std::memcmp(r.target.data() + 4096, data.data(), data.size()));
  // The next number is due next.
  auto second = sealedPiece(1, 1, 0, randomBytes(1000, 2));
  ASSERT_TRUE(sendAllOf(r.ends[1], second, second.size()));
  EXPECT_TRUE(r.acknowledged(1, 1));
  EXPECT_FALSE(r.lanes->failed()) << r.lanes->failure();
}

// One bad piece on lane 0: refused with `says`, not acknowledged, and the
// lanes end.
void expectRefused(SealedReader &r, const std::vector<uint8_t> &bad,
                   uint64_t number, const std::string &says) {
  // A piece refused at its header closes the lane before the rest is in:
  // the send may fail.
  (void)sendAllOf(r.ends[0], bad, bad.size());
  EXPECT_FALSE(r.acknowledged(0, number));
  std::string why = r.refused();
  EXPECT_NE(why.find(says), std::string::npos) << why;
  EXPECT_TRUE(r.lanes->failed());
}

TEST(SealedLanes, APieceForAnotherLaneIsRefused) {
  SealedReader r(2);
  expectRefused(r, sealedPiece(1, 0, 0, randomBytes(3 * kChunk, 3)), 0,
                "failed authentication");
}

TEST(SealedLanes, ADroppedPieceIsRefused) {
  SealedReader r(1);
  expectRefused(r, sealedPiece(0, 1, 0, randomBytes(1000, 4)), 1,
                "piece 0 was due");
}

TEST(SealedLanes, AReplayedPieceIsRefused) {
  SealedReader r(1);
  auto piece = sealedPiece(0, 0, 0, randomBytes(2 * kChunk + 7, 5));
  ASSERT_TRUE(sendAllOf(r.ends[0], piece, piece.size()));
  ASSERT_TRUE(r.acknowledged(0, 0));
  expectRefused(r, piece, 0, "piece 1 was due");
}

TEST(SealedLanes, ReorderedPiecesAreRefused) {
  SealedReader r(1);
  auto first = sealedPiece(0, 0, 0, randomBytes(1000, 6));
  ASSERT_TRUE(sendAllOf(r.ends[0], first, first.size()));
  ASSERT_TRUE(r.acknowledged(0, 0));
  // Pieces 1 and 2 swapped on the way: 2 comes first.
  expectRefused(r, sealedPiece(0, 2, 2000, randomBytes(1000, 7)), 2,
                "piece 1 was due");
}

TEST(SealedLanes, AByteChangedInALaterChunkIsRefused) {
  SealedReader r(1);
  auto data = randomBytes(4 * kChunk, 8);
  auto piece = sealedPiece(0, 0, 0, data);
  piece[sizeof(LanePiece) + 3 * kChunk + 5] ^= 1;
  expectRefused(r, piece, 0, "changed in transit");
}

TEST(SealedLanes, AChangedHeaderIsRefused) {
  SealedReader r(1);
  auto piece = sealedPiece(0, 0, 0, randomBytes(3 * kChunk, 9));
  reinterpret_cast<LanePiece *>(piece.data())->offset = 4096; // elsewhere
  expectRefused(r, piece, 0, "changed in transit");
}

TEST(SealedLanes, APieceCutShortIsNeitherAcknowledgedNorWaitedFor) {
  SealedReader r(1);
  auto piece = sealedPiece(0, 0, 0, randomBytes(3 * kChunk, 10));
  ASSERT_TRUE(sendAllOf(r.ends[0], piece, piece.size() / 2));
  shutdown(r.ends[0], SHUT_WR);
  EXPECT_FALSE(r.acknowledged(0, 0));
  for (int i = 0; i < 500 && !r.lanes->failed(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_NE(r.lanes->failure().find("in the middle of a piece"),
            std::string::npos)
      << r.lanes->failure();
}

// The writing side: its pieces of several chunks (sealed while the stage
// sends) open under the numbers due; an acknowledgement replayed from an
// earlier piece ends the write, refused.
TEST(SealedLanes, AWritersPiecesOpenInOrderAndAReplayedAckIsRefused) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  Lanes writer({sv[0]}, {}, std::make_shared<LaneRegions>());
  std::string refusal;
  std::mutex mu;
  writer.seal(SealKeys{kPieces, kAcks}, [&](const std::string &why) {
    std::lock_guard<std::mutex> g(mu);
    refusal = why;
  });
  auto data = randomBytes(3 * kChunk + 99, 11);
  RecordCipher open(kPieces, kLanePieceStream, RecordCipher::Mode::Open);
  RecordCipher sealAck(kAcks, kLaneAckStream, RecordCipher::Mode::Seal);
  std::vector<uint8_t> savedAck;
  for (uint64_t number = 0; number < 2; ++number) {
    std::string why;
    auto done = std::async(std::launch::async, [&] {
      return writer.write(
          {{data.data(), data.size(), kKey, 0}}, [] { return true; }, &why);
    });
    LanePiece h{};
    ASSERT_TRUE(recvWithin(sv[1], &h, sizeof h));
    EXPECT_EQ(h.tag, number);
    ASSERT_EQ(h.size, data.size());
    std::vector<uint8_t> body(h.size);
    uint8_t tag[kRecordTagBytes];
    ASSERT_TRUE(recvWithin(sv[1], body.data(), body.size()));
    ASSERT_TRUE(recvWithin(sv[1], tag, sizeof tag));
    EXPECT_NE(body, data); // sealed
    ASSERT_TRUE(open.open(number, &h, sizeof h, body.data(), body.data(),
                          body.size(), tag));
    EXPECT_EQ(body, data);
    struct {
      LaneAck ack;
      uint8_t tag[kRecordTagBytes];
    } out{{number, 0}, {}};
    auto *a = reinterpret_cast<uint8_t *>(&out.ack);
    ASSERT_TRUE(
        sealAck.seal(number, nullptr, 0, a, a, sizeof out.ack, out.tag));
    std::vector<uint8_t> ack(reinterpret_cast<uint8_t *>(&out),
                             reinterpret_cast<uint8_t *>(&out) + sizeof out);
    if (number == 0)
      savedAck = ack;
    else
      ack = savedAck; // the first piece's acknowledgement, again
    ASSERT_TRUE(sendAllOf(sv[1], ack, ack.size()));
    EXPECT_EQ(done.get(), number == 0) << why;
  }
  std::lock_guard<std::mutex> g(mu);
  EXPECT_NE(refusal.find("acknowledgement 1 failed authentication"),
            std::string::npos)
      << refusal;
  close(sv[1]);
}

} // namespace
