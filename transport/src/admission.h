// Admission before the private endpoint (docs/design/preauth-admission.md,
// "Admission"): the frames a listener with keys exchanges with a client before
// it opens anything for it, the transcript the client's proof covers, and the
// listener's table of challenges waiting for their proof.
//
//   client -> listener  Connect    (as without admission)
//   listener -> client  Challenge  the request's nonce, 32 fresh bytes
//   client -> listener  Prove      both nonces, key id, proof, the request
//   listener -> client  Accept     from the new private endpoint (tcp) or
//                                  the socket (shm), as without admission
//                       or Refuse  why; whether a new attempt may pass
//
// The proof is single use: a challenge is forgotten when its proof comes
// (right or wrong), when it ages out, or when a newer one pushes it out.
#ifndef RC_TRANSPORT_ADMISSION_H
#define RC_TRANSPORT_ADMISSION_H

#include "frame.h"
#include "rc/transport.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace rc::transport::detail {

using AdmissionNonce = std::array<uint8_t, 32>;
using AdmissionProofBytes = std::array<uint8_t, 32>;

// Longest key id and refusal text a frame carries.
constexpr size_t kMaxAdmissionKeyId = 64;
constexpr size_t kMaxRefusalText = 512;

struct Challenge {
  uint64_t requestNonce = 0; // the Connect's nonce, echoed
  AdmissionNonce serverNonce{};
};

struct Prove {
  AdmissionNonce serverNonce{}; // the challenge's, echoed
  AdmissionNonce clientNonce{}; // fresh from the client
  std::string keyId;
  AdmissionProofBytes proof{};
  std::vector<uint8_t> request; // a Connect payload (encodeHello's, no header)
};

struct Refusal {
  uint64_t requestNonce = 0;
  bool mayRetry = false; // the challenge lapsed: a new attempt may pass
  std::string why;
};

// Whole frames (header included); decode* take the payload after the
// header and return false on malformed input. What the listener sends
// fits the provider's inject size where it can (tcp: 64 bytes), so that
// it goes out without a send slot: a Challenge is the header (seq: the
// request's nonce) and the 32-byte nonce; a Refusal the header (seq: the
// request's nonce, flags: kRefusalMayRetry, total: the text's length) and
// its text, if any.
constexpr uint16_t kRefusalMayRetry = 1;
std::vector<uint8_t> encodeChallenge(const Challenge &c);
bool decodeChallenge(const FrameHeader &h, const uint8_t *p, size_t n,
                     Challenge *c);
std::vector<uint8_t> encodeProve(const Prove &p);
bool decodeProve(const uint8_t *p, size_t n, Prove *out);
std::vector<uint8_t> encodeRefusal(const Refusal &r);
bool decodeRefusal(const FrameHeader &h, const uint8_t *p, size_t n,
                   Refusal *r);

// A Connect payload without its frame header, as a Prove carries it.
std::vector<uint8_t> requestBytes(const Hello &request);

// What the proof covers: a label, both nonces, the key id and the whole
// request, each field of variable size preceded by its length.
std::vector<uint8_t> admissionTranscript(const Prove &p);

// The client's Prove frame answering `challenge` of its `request` with
// `key`; false with *error (no key, or the prover failed).
bool answerChallenge(const AdmissionKey &key, const Challenge &challenge,
                     const Hello &request, std::vector<uint8_t> *frame,
                     std::string *error);

// 32 bytes from the system's random source; false if it has none.
bool freshNonce(AdmissionNonce *out);
// a == b, in time that does not depend on where they differ.
bool sameNonce(const AdmissionNonce &a, const AdmissionNonce &b);

// The listener's challenges waiting for their proof (tcp; shm keeps its
// challenge with the client's socket). Fixed-size records, at most `max`,
// each at most `maxAgeMs`; a new one pushes out the oldest.
class PendingChallenges {
public:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    AdmissionNonce serverNonce;
    uint64_t requestNonce;
    uint64_t addressHash; // of the address the request named
    Clock::time_point issued;
  };
  PendingChallenges(size_t max, int maxAgeMs)
      : max_(max), maxAgeMs_(maxAgeMs) {}

  // The challenge already issued for this request (a repeated Connect).
  Entry *find(uint64_t requestNonce, uint64_t addressHash);
  // A new challenge; when the table is full the oldest entry is pushed out
  // into *pushedOut. False when no random bytes could be had.
  bool issue(uint64_t requestNonce, uint64_t addressHash, Entry **out,
             std::optional<Entry> *pushedOut);
  // Takes the entry of `serverNonce` away (single use).
  std::optional<Entry> take(const AdmissionNonce &serverNonce);
  // Takes away every entry older than maxAgeMs, into *expired.
  void expire(std::vector<Entry> *expired);
  std::deque<Entry> &entries() { return entries_; }
  size_t size() const { return entries_.size(); }

private:
  size_t max_;
  int maxAgeMs_;
  std::deque<Entry> entries_; // oldest first
};

uint64_t addressHash(const std::vector<uint8_t> &address);

} // namespace rc::transport::detail

#endif
