// Wire framing below the message layer. Every libfabric message the
// transport sends starts with a FrameHeader; a user message is one or more
// Data frames (fragments) that the receiver reassembles by sequence number.
#ifndef RC_TRANSPORT_FRAME_H
#define RC_TRANSPORT_FRAME_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rc::transport::detail {

constexpr uint32_t kFrameMagic = 0x31544352; // "RCT1" little-endian
constexpr uint16_t kProtocolVersion = 1;
// Largest fragment payload. Receive buffers are this plus the header.
constexpr size_t kFragmentPayload = 1u << 20;

enum class FrameType : uint16_t {
  Data = 1,      // a fragment of a user message
  KeepAlive = 2, // sign of life when idle; never surfaced
  Close = 3,     // orderly shutdown by the peer
  Connect = 4,   // client -> listener: please open a private endpoint
  Accept = 5,    // private endpoint -> client: here I am
  Write = 6,     // sealed connections: bytes for memory the peer exposed
                 // (seq: the key, offset: where in it; sealed_frames.h)
  Challenge = 7, // listener -> client: prove a key first (admission.h)
  Prove = 8,     // client -> listener: the proof, with the request again
  Refuse = 9,    // listener -> client: admission refused, and why
};

// A KeepAlive from a receiver whose owner is behind (its queue is full, so
// it leaves what the peer sends with the provider): the peer's sends that
// make no progress meanwhile are back-pressure, not a dead peer.
constexpr uint16_t kHoldingBack = 1;

struct FrameHeader {
  uint32_t magic;
  uint16_t type;
  uint16_t flags;  // KeepAlive: kHoldingBack; sealed_frames.h's flags
  uint64_t seq;    // Data: message sequence number (per direction)
  uint64_t total;  // Data: whole message size
  uint64_t offset; // Data: where this fragment goes
};
static_assert(sizeof(FrameHeader) == 32, "frame header is 32 bytes");

using LaneToken = std::array<uint8_t, 16>;

// Connect / Accept payload (after the header): who the sender is and the
// raw libfabric address to use for it. tcp lanes (lanes.h): a Connect's
// `lanes` is how many the client wants each way, an Accept's how many the
// server offers at `lanePort` under `laneToken` (0: none). Older peers end
// the payload before them, which reads as no lanes.
struct Hello {
  uint16_t version = kProtocolVersion;
  uint64_t nonce = 0; // chosen by the client, echoed in Accept
  uint32_t pid = 0;
  std::string hostname;
  std::vector<uint8_t> address;
  uint8_t lanes = 0;
  uint16_t lanePort = 0;
  LaneToken laneToken{};
};

std::vector<uint8_t> encodeHello(FrameType type, const Hello &hello);
// Parses a Connect/Accept payload; false on malformed input.
bool decodeHello(const uint8_t *data, size_t size, Hello *hello);

} // namespace rc::transport::detail

#endif
