// The challenge-response proofs of rc-server's handshake (docs/protocol.md,
// "Authentication"): each side shows it holds the shared key without sending
// it. Both proofs are HMAC-SHA256 under the key over the same transcript,
// with a different label for each direction, so neither can be replayed as
// the other, and the transcript holds the server's fresh per-connection
// challenge, so no proof is valid on another connection.
#ifndef RC_AUTH_PROOF_H
#define RC_AUTH_PROOF_H

#include "rc/auth/key_file.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rc::auth {

constexpr size_t kNonceBytes = 32;
constexpr size_t kProofBytes = 32;
using Nonce = std::array<uint8_t, kNonceBytes>;
using Proof = std::array<uint8_t, kProofBytes>;
using Digest = std::array<uint8_t, 32>;

// From the operating system's random source (through OpenSSL's DRBG).
bool randomBytes(uint8_t *out, size_t size);

Digest sha256(const void *data, size_t size);

// What both proofs of one handshake cover.
struct Transcript {
  std::string keyId;
  Nonce clientNonce{};
  Nonce serverNonce{};  // the server's challenge, fresh per connection
  uint64_t sessionId{}; // the server's id of this connection's session
  Digest helloDigest{}; // SHA-256 of the client's whole Hello message
};

// The client's answer to the challenge, and the server's answer to the
// client (sent once the client's proof was right). False only when libcrypto
// fails (out of memory): the handshake must then fail, never go on with
// whatever *out holds.
bool clientProof(const Key &key, const Transcript &t, Proof *out);
bool serverProof(const Key &key, const Transcript &t, Proof *out);

// The proof that admits a client to the transport before anything is
// opened for it (rc/transport.h, AdmissionClaim): HMAC-SHA256 under the key
// over the transport's transcript (its own label, both sides' nonces, the
// key id and the client's request), under a label of its own so that it
// can never stand for either proof above. False only when libcrypto fails.
bool admissionProof(const Key &key, const std::vector<uint8_t> &transcript,
                    Proof *out);

// Whether `given` (size bytes, from the peer) equals `expected`, in time
// that does not depend on where they differ.
bool sameProof(const uint8_t *given, size_t size, const Proof &expected);

} // namespace rc::auth

#endif
