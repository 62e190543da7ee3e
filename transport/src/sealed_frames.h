// The records of a sealed connection's own frames (docs/transport.md,
// "Sealing"). A sealed frame is
//   [FrameHeader, flags with kSealed][record number, 8 bytes]
//   [payload, encrypted][tag, 16 bytes]
// and its header and record number are authenticated with the payload.
// Records are numbered from 0 per direction in the order they are posted;
// the receiver opens each under the number it expects next, so a record
// that was changed, replayed, reordered or dropped (the one after it then
// comes early) is refused, each by name.
#ifndef RC_TRANSPORT_SEALED_FRAMES_H
#define RC_TRANSPORT_SEALED_FRAMES_H

#include "frame.h"
#include "record_cipher.h"

#include <string>

namespace rc::transport::detail {

// FrameHeader::flags of a sealed Data, Write or Close frame.
constexpr uint16_t kSealed = 2;
// Close frames: this side ends the connection because a record of the
// peer failed to open (the peer learns why, sealed).
constexpr uint16_t kRecordRefused = 4;
constexpr size_t kSealOverhead = 8 + kRecordTagBytes;

class FrameSealer {
public:
  explicit FrameSealer(const TrafficKey &key)
      : cipher_(key, kFrameStream, RecordCipher::Mode::Seal) {}
  // Writes the sealed frame of `h` (kSealed is added) carrying `len` bytes
  // of `payload` into `out`: sizeof(FrameHeader) + len + kSealOverhead
  // bytes. It takes the next record number: frames must be posted in the
  // order they were sealed.
  bool seal(FrameHeader h, const uint8_t *payload, size_t len, uint8_t *out);
  uint64_t sealed() const { return next_; }

private:
  RecordCipher cipher_;
  uint64_t next_ = 0;
};

class FrameOpener {
public:
  explicit FrameOpener(const TrafficKey &key)
      : cipher_(key, kFrameStream, RecordCipher::Mode::Open) {}
  // The payload bytes a sealed frame of `len` bytes after its header
  // carries; false (with *why) when it cannot hold a record, or its record
  // number is not the one due: a replayed or an early (an earlier one was
  // dropped or held back) record.
  bool check(const uint8_t *payload, size_t len, size_t *plainSize,
             std::string *why) const;
  // Opens a frame that passed check() into `out` (plainSize bytes);
  // false (with *why) when it does not authenticate.
  bool open(const FrameHeader &h, const uint8_t *payload, size_t len,
            uint8_t *out, std::string *why);
  uint64_t opened() const { return next_; }

private:
  RecordCipher cipher_;
  uint64_t next_ = 0;
};

} // namespace rc::transport::detail

#endif
