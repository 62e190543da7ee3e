// The server's side of one session's authentication (docs/protocol.md,
// "Authentication"): at Hello it sends a fresh challenge, at AuthResponse it
// checks the client's proof in constant time, and then it proves in turn
// that it holds the same key. Failures feed the server's AuthThrottle; a
// right proof is accepted whatever the throttle says.
#ifndef RC_SERVER_HELLO_AUTH_H
#define RC_SERVER_HELLO_AUTH_H

#include "protocol_generated.h"
#include "rc/auth/key_file.h"
#include "rc/auth/proof.h"
#include "rc/server/auth_throttle.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rc::server {

class HelloAuth {
public:
  // `keys` and `throttle` (may be null: no back-off) outlive this object.
  HelloAuth(const std::vector<auth::Key> &keys, AuthThrottle *throttle,
            uint64_t sessionId)
      : keys_(keys), throttle_(throttle), sessionId_(sessionId) {}

  // Whether clients must authenticate at all (the server has keys).
  bool required() const { return !keys_.empty(); }
  // A challenge was sent and its answer has not arrived yet.
  bool awaitingResponse() const { return awaiting_; }

  // At Hello (`message`: the whole Hello message, which the proofs cover;
  // kept until the answer comes; `source`: where the client connects from,
  // peer_source.h): fills *challenge with the AuthChallenge message to
  // send, or returns false with the reason to refuse the client.
  bool challenge(const wire::Hello &hello, const uint8_t *message, size_t size,
                 const std::string &source, std::vector<uint8_t> *challenge,
                 std::string *why);
  // At AuthResponse: whether the client proved it holds the key it named;
  // *why otherwise. On success *serverProof is the server's answer.
  bool verify(const wire::AuthResponse &response, auth::Proof *serverProof,
              std::string *why);
  // The last verify() failed while its source or key id was backing off
  // already: worth a debug line, not one more line of the log each time.
  bool failedWhileBackingOff() const { return backingOff_; }
  // The Hello that was challenged, to open the session from once verified.
  const wire::Hello *hello() const;
  const std::string &keyId() const { return transcript_.keyId; }

  // Before challenge(): whether the challenge announces that the connection
  // is sealed once the proof is right (session/transport_sealing.h).
  void announceSealing(bool seal) { sealing_ = seal; }
  bool sealing() const { return sealing_; }
  // After a successful verify(): the key the client proved it holds and
  // the transcript both proofs covered, which the sealing keys come from.
  const auth::Key *provenKey() const { return proven_; }
  const auth::Transcript &transcript() const { return transcript_; }

private:
  const std::vector<auth::Key> &keys_;
  AuthThrottle *throttle_;
  uint64_t sessionId_;
  bool awaiting_ = false;
  bool sealing_ = false;
  const auth::Key *proven_ = nullptr;
  bool backingOff_ = false;
  std::string source_;
  std::vector<uint8_t> helloMessage_;
  auth::Transcript transcript_;
};

} // namespace rc::server

#endif
