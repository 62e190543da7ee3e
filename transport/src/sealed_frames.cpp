#include "sealed_frames.h"

#include <cstring>

namespace rc::transport::detail {

namespace {
// What the tag covers besides the payload: the header and the number.
struct Aad {
  FrameHeader header;
  uint64_t record;
};
static_assert(sizeof(Aad) == sizeof(FrameHeader) + 8, "no padding");
} // namespace

bool FrameSealer::seal(FrameHeader h, const uint8_t *payload, size_t len,
                       uint8_t *out) {
  h.flags |= kSealed;
  Aad aad{h, next_};
  std::memcpy(out, &aad, sizeof aad);
  uint8_t *body = out + sizeof aad;
  if (!cipher_.seal(next_, &aad, sizeof aad, payload, body, len, body + len))
    return false;
  ++next_;
  return true;
}

bool FrameOpener::check(const uint8_t *payload, size_t len, size_t *plainSize,
                        std::string *why) const {
  if (len < kSealOverhead) {
    *why = "a sealed frame of " + std::to_string(len) +
           " bytes is too short for a record";
    return false;
  }
  uint64_t record;
  std::memcpy(&record, payload, sizeof record);
  if (record < next_) {
    *why = "record " + std::to_string(record) + " arrived again (record " +
           std::to_string(next_) + " was due): a replayed record";
    return false;
  }
  if (record > next_) {
    *why = "record " + std::to_string(record) + " arrived where record " +
           std::to_string(next_) + " was due: a dropped or reordered record";
    return false;
  }
  *plainSize = len - kSealOverhead;
  return true;
}

bool FrameOpener::open(const FrameHeader &h, const uint8_t *payload, size_t len,
                       uint8_t *out, std::string *why) {
  size_t plain = len - kSealOverhead;
  Aad aad{h, next_};
  const uint8_t *body = payload + 8;
  if (!cipher_.open(next_, &aad, sizeof aad, body, out, plain, body + plain)) {
    *why = "record " + std::to_string(next_) +
           " failed authentication: it was changed in transit";
    return false;
  }
  ++next_;
  return true;
}

} // namespace rc::transport::detail
