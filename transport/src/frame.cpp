#include "frame.h"

#include <cstring>

namespace rc::transport::detail {

namespace {
template <typename T> void put(std::vector<uint8_t> &out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}
template <typename T> bool get(const uint8_t *&p, const uint8_t *end, T *v) {
  if (static_cast<size_t>(end - p) < sizeof(T))
    return false;
  std::memcpy(v, p, sizeof(T));
  p += sizeof(T);
  return true;
}
} // namespace

std::vector<uint8_t> encodeHello(FrameType type, const Hello &hello) {
  std::vector<uint8_t> out;
  FrameHeader h{kFrameMagic, static_cast<uint16_t>(type), 0, 0, 0, 0};
  out.resize(sizeof h);
  std::memcpy(out.data(), &h, sizeof h);
  put<uint16_t>(out, hello.version);
  put<uint64_t>(out, hello.nonce);
  put<uint32_t>(out, hello.pid);
  put<uint16_t>(out, static_cast<uint16_t>(hello.hostname.size()));
  out.insert(out.end(), hello.hostname.begin(), hello.hostname.end());
  put<uint16_t>(out, static_cast<uint16_t>(hello.address.size()));
  out.insert(out.end(), hello.address.begin(), hello.address.end());
  put<uint8_t>(out, hello.lanes);
  put<uint16_t>(out, hello.lanePort);
  out.insert(out.end(), hello.laneToken.begin(), hello.laneToken.end());
  return out;
}

bool decodeHello(const uint8_t *p, size_t size, Hello *hello) {
  const uint8_t *end = p + size;
  uint16_t hostLen = 0, addrLen = 0;
  if (!get(p, end, &hello->version) || !get(p, end, &hello->nonce) ||
      !get(p, end, &hello->pid) || !get(p, end, &hostLen) ||
      static_cast<size_t>(end - p) < hostLen)
    return false;
  hello->hostname.assign(reinterpret_cast<const char *>(p), hostLen);
  p += hostLen;
  if (!get(p, end, &addrLen) || static_cast<size_t>(end - p) < addrLen)
    return false;
  hello->address.assign(p, p + addrLen);
  p += addrLen;
  if (p == end)
    return true; // no lanes
  if (!get(p, end, &hello->lanes) || !get(p, end, &hello->lanePort) ||
      static_cast<size_t>(end - p) < hello->laneToken.size())
    return false;
  std::memcpy(hello->laneToken.data(), p, hello->laneToken.size());
  return true;
}

} // namespace rc::transport::detail
