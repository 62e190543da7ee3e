// RecordCipher: AES-256-GCM over the records of one stream in one direction
// of a sealed connection (docs/transport-internals/connections.md, "Sealing").
// A stream is the connection's own frames or one lane's pieces or
// acknowledgements; each has its own record numbers, and the nonce is the
// direction's IV mixed with the stream's id and the record's number, so no
// nonce repeats under a key. One RecordCipher serves one thread at a time.
#ifndef RC_TRANSPORT_RECORD_CIPHER_H
#define RC_TRANSPORT_RECORD_CIPHER_H

#include "rc/transport.h"

#include <cstddef>
#include <cstdint>

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace rc::transport::detail {

constexpr size_t kRecordTagBytes = 16;

// Stream ids: the connection's frames, then per lane (index in the low
// bits) the writer's pieces and the reader's acknowledgements.
constexpr uint32_t kFrameStream = 0;
constexpr uint32_t kLanePieceStream = 1u << 16;
constexpr uint32_t kLaneAckStream = 2u << 16;

class RecordCipher {
public:
  enum class Mode { Seal, Open };
  RecordCipher(const TrafficKey &key, uint32_t stream, Mode mode);
  ~RecordCipher();
  RecordCipher(const RecordCipher &) = delete;
  RecordCipher &operator=(const RecordCipher &) = delete;

  // One whole record: `size` bytes from `in` to `out` (which may be the
  // same), `aad` authenticated along. seal() writes the tag; open() checks
  // it and is false when the record is not what the peer sealed under this
  // number (changed, or another record).
  bool seal(uint64_t number, const void *aad, size_t aadSize, const uint8_t *in,
            uint8_t *out, size_t size, uint8_t tag[kRecordTagBytes]);
  bool open(uint64_t number, const void *aad, size_t aadSize, const uint8_t *in,
            uint8_t *out, size_t size, const uint8_t tag[kRecordTagBytes]);

  // The same in steps, for a record that passes in pieces (a lane's
  // slice): begin, update as often as needed, then finish (seal: writes
  // the tag; open: checks it). Bytes open() placed before a failed finish
  // are not the peer's: the caller must not use them.
  bool begin(uint64_t number, const void *aad, size_t aadSize);
  bool update(const uint8_t *in, uint8_t *out, size_t size);
  bool finishSeal(uint8_t tag[kRecordTagBytes]);
  bool finishOpen(const uint8_t tag[kRecordTagBytes]);

private:
  EVP_CIPHER_CTX *ctx_;
  Mode mode_;
  uint8_t iv_[12];
  bool ok_ = false; // the key was accepted
};

} // namespace rc::transport::detail

#endif
