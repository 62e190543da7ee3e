// The keys that seal one connection after its handshake (docs/security.md,
// "Encryption in transit"): HKDF-SHA256 over the shared key, salted with
// both sides' nonces of the challenge-response, one key and IV for each
// direction. Both sides compute them from what the handshake left them; they
// never cross the network, and a fresh server nonce makes every connection's
// keys new.
#ifndef RC_AUTH_SESSION_KEYS_H
#define RC_AUTH_SESSION_KEYS_H

#include "rc/auth/key_file.h"
#include "rc/auth/proof.h"

#include <array>
#include <cstdint>

namespace rc::auth {

// One direction's AEAD key (AES-256-GCM) and the 12-byte IV that each
// record's number is mixed into.
struct DirectionKey {
  std::array<uint8_t, 32> key{};
  std::array<uint8_t, 12> iv{};
};

struct SessionKeys {
  DirectionKey clientToServer;
  DirectionKey serverToClient;
};

// Derives both directions' keys from `key` and the handshake's transcript
// (the same one the proofs cover). False only when libcrypto fails; *out
// must then not be used.
bool deriveSessionKeys(const Key &key, const Transcript &t, SessionKeys *out);

} // namespace rc::auth

#endif
