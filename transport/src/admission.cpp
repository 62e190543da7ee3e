#include "admission.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cstring>

namespace rc::transport::detail {

namespace {
constexpr uint16_t kAdmissionVersion = 1;
constexpr char kTranscriptLabel[] = "rc-transport-v1 admission";

template <typename T> void put(std::vector<uint8_t> &out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}
template <typename T> bool get(const uint8_t *&p, const uint8_t *end, T *v) {
  if (size_t(end - p) < sizeof(T))
    return false;
  std::memcpy(v, p, sizeof(T));
  p += sizeof(T);
  return true;
}
void putBytes(std::vector<uint8_t> &out, const uint8_t *p, size_t n) {
  out.insert(out.end(), p, p + n);
}
template <size_t N>
bool getArray(const uint8_t *&p, const uint8_t *end,
              std::array<uint8_t, N> *out) {
  if (size_t(end - p) < N)
    return false;
  std::memcpy(out->data(), p, N);
  p += N;
  return true;
}

std::vector<uint8_t> frameOf(FrameType type, uint16_t flags = 0,
                             uint64_t seq = 0, uint64_t total = 0) {
  FrameHeader h{kFrameMagic, static_cast<uint16_t>(type), flags, seq, total, 0};
  std::vector<uint8_t> out(sizeof h);
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

bool versionOk(const uint8_t *&p, const uint8_t *end) {
  uint16_t v = 0;
  return get(p, end, &v) && v == kAdmissionVersion;
}
} // namespace

std::vector<uint8_t> encodeChallenge(const Challenge &c) {
  std::vector<uint8_t> out = frameOf(FrameType::Challenge, 0, c.requestNonce);
  putBytes(out, c.serverNonce.data(), c.serverNonce.size());
  return out;
}

bool decodeChallenge(const FrameHeader &h, const uint8_t *p, size_t n,
                     Challenge *c) {
  const uint8_t *end = p + n;
  c->requestNonce = h.seq;
  return getArray(p, end, &c->serverNonce) && p == end;
}

std::vector<uint8_t> encodeProve(const Prove &v) {
  std::vector<uint8_t> out = frameOf(FrameType::Prove);
  put<uint16_t>(out, kAdmissionVersion);
  putBytes(out, v.serverNonce.data(), v.serverNonce.size());
  putBytes(out, v.clientNonce.data(), v.clientNonce.size());
  put<uint8_t>(out, uint8_t(v.keyId.size()));
  putBytes(out, reinterpret_cast<const uint8_t *>(v.keyId.data()),
           v.keyId.size());
  putBytes(out, v.proof.data(), v.proof.size());
  put<uint16_t>(out, uint16_t(v.request.size()));
  putBytes(out, v.request.data(), v.request.size());
  return out;
}

bool decodeProve(const uint8_t *p, size_t n, Prove *v) {
  const uint8_t *end = p + n;
  uint8_t idLen = 0;
  uint16_t requestLen = 0;
  if (!versionOk(p, end) || !getArray(p, end, &v->serverNonce) ||
      !getArray(p, end, &v->clientNonce) || !get(p, end, &idLen) ||
      idLen > kMaxAdmissionKeyId || size_t(end - p) < idLen)
    return false;
  v->keyId.assign(reinterpret_cast<const char *>(p), idLen);
  p += idLen;
  if (!getArray(p, end, &v->proof) || !get(p, end, &requestLen) ||
      size_t(end - p) != requestLen)
    return false;
  v->request.assign(p, end);
  return true;
}

std::vector<uint8_t> encodeRefusal(const Refusal &r) {
  size_t n = std::min(r.why.size(), kMaxRefusalText);
  std::vector<uint8_t> out = frameOf(
      FrameType::Refuse, r.mayRetry ? kRefusalMayRetry : 0, r.requestNonce, n);
  putBytes(out, reinterpret_cast<const uint8_t *>(r.why.data()), n);
  return out;
}

bool decodeRefusal(const FrameHeader &h, const uint8_t *p, size_t n,
                   Refusal *r) {
  if (h.total != n || n > kMaxRefusalText)
    return false;
  r->requestNonce = h.seq;
  r->mayRetry = (h.flags & kRefusalMayRetry) != 0;
  // Shown in the client's error: printable ASCII only.
  r->why.clear();
  for (size_t i = 0; i < n; ++i)
    r->why += (p[i] >= 0x20 && p[i] < 0x7f) ? char(p[i]) : '?';
  if (r->why.empty())
    r->why = "the listener gave no reason";
  return true;
}

std::vector<uint8_t> requestBytes(const Hello &request) {
  std::vector<uint8_t> frame = encodeHello(FrameType::Connect, request);
  return {frame.begin() + sizeof(FrameHeader), frame.end()};
}

std::vector<uint8_t> admissionTranscript(const Prove &v) {
  std::vector<uint8_t> out(kTranscriptLabel,
                           kTranscriptLabel + sizeof kTranscriptLabel);
  putBytes(out, v.serverNonce.data(), v.serverNonce.size());
  putBytes(out, v.clientNonce.data(), v.clientNonce.size());
  put<uint64_t>(out, v.keyId.size());
  putBytes(out, reinterpret_cast<const uint8_t *>(v.keyId.data()),
           v.keyId.size());
  put<uint64_t>(out, v.request.size());
  putBytes(out, v.request.data(), v.request.size());
  return out;
}

bool answerChallenge(const AdmissionKey &key, const Challenge &challenge,
                     const Hello &request, std::vector<uint8_t> *frame,
                     std::string *error) {
  if (key.keyId.empty() || !key.prove) {
    *error = "authentication required: it admits only clients that prove "
             "they hold one of its keys, and this client has none";
    return false;
  }
  if (key.keyId.size() > kMaxAdmissionKeyId) {
    *error = "key id '" + key.keyId + "' is too long";
    return false;
  }
  Prove prove;
  prove.serverNonce = challenge.serverNonce;
  prove.keyId = key.keyId;
  prove.request = requestBytes(request);
  if (!freshNonce(&prove.clientNonce) ||
      !key.prove(admissionTranscript(prove), &prove.proof)) {
    *error = "computing the proof of key '" + key.keyId + "' failed";
    return false;
  }
  *frame = encodeProve(prove);
  return true;
}

bool freshNonce(AdmissionNonce *out) {
  return RAND_bytes(out->data(), int(out->size())) == 1;
}

bool sameNonce(const AdmissionNonce &a, const AdmissionNonce &b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

uint64_t addressHash(const std::vector<uint8_t> &address) {
  uint64_t h = 1469598103934665603ull; // FNV-1a: a table key, not security
  for (uint8_t b : address)
    h = (h ^ b) * 1099511628211ull;
  return h;
}

PendingChallenges::Entry *PendingChallenges::find(uint64_t requestNonce,
                                                  uint64_t hash) {
  for (Entry &e : entries_)
    if (e.requestNonce == requestNonce && e.addressHash == hash)
      return &e;
  return nullptr;
}

bool PendingChallenges::issue(uint64_t requestNonce, uint64_t hash, Entry **out,
                              std::optional<Entry> *pushedOut) {
  Entry e{{}, requestNonce, hash, Clock::now()};
  if (!freshNonce(&e.serverNonce))
    return false;
  pushedOut->reset();
  if (entries_.size() >= max_ && !entries_.empty()) {
    *pushedOut = entries_.front();
    entries_.pop_front();
  }
  entries_.push_back(e);
  *out = &entries_.back();
  return true;
}

std::optional<PendingChallenges::Entry>
PendingChallenges::take(const AdmissionNonce &serverNonce) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (sameNonce(it->serverNonce, serverNonce)) {
      Entry e = *it;
      entries_.erase(it);
      return e;
    }
  return std::nullopt;
}

void PendingChallenges::expire(std::vector<Entry> *expired) {
  auto now = Clock::now();
  while (!entries_.empty() && now - entries_.front().issued >=
                                  std::chrono::milliseconds(maxAgeMs_)) {
    expired->push_back(entries_.front());
    entries_.pop_front();
  }
}

} // namespace rc::transport::detail
