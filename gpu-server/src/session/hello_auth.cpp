#include "session/hello_auth.h"
#include "session/server_message.h"

namespace rc::server {

bool HelloAuth::challenge(const wire::Hello &hello, const uint8_t *message,
                          size_t size, const std::string &source,
                          std::vector<uint8_t> *challenge, std::string *why) {
  if (!hello.auth_key_id()) {
    *why = "authentication required: this server only serves clients that "
           "hold one of its keys (set RC_AUTH_KEY_FILE to a copy of the key "
           "file given to rc-server --auth-key-file)";
    return false;
  }
  if (!auth::validKeyId(hello.auth_key_id()->str())) {
    // It would be printed in logs and errors: keep it to a safe alphabet.
    *why = "Hello.auth_key_id is not 1 to 64 characters of A-Z a-z 0-9 . _ "
           "@ -";
    return false;
  }
  const auto *nonce = hello.auth_client_nonce();
  if (!nonce || nonce->size() != auth::kNonceBytes) {
    *why = "Hello.auth_client_nonce must be " +
           std::to_string(auth::kNonceBytes) + " bytes, got " +
           std::to_string(nonce ? nonce->size() : 0);
    return false;
  }
  // No back-off here: whoever holds the key gets its challenge, whatever
  // others from the same source, or naming the same key id, got wrong.
  transcript_.keyId = hello.auth_key_id()->str();
  std::copy(nonce->begin(), nonce->end(), transcript_.clientNonce.begin());
  transcript_.sessionId = sessionId_;
  transcript_.helloDigest = auth::sha256(message, size);
  if (!auth::randomBytes(transcript_.serverNonce.data(),
                         transcript_.serverNonce.size())) {
    *why = "the server has no random bytes for a challenge; try again";
    return false;
  }
  helloMessage_.assign(message, message + size);
  source_ = source;

  flatbuffers::FlatBufferBuilder fbb;
  auto serverNonce = fbb.CreateVector(transcript_.serverNonce.data(),
                                      transcript_.serverNonce.size());
  auto body = wire::CreateAuthChallenge(fbb, serverNonce, sessionId_, sealing_);
  *challenge = finishMessage(fbb, wire::Body::AuthChallenge, body.Union());
  awaiting_ = true;
  return true;
}

bool HelloAuth::verify(const wire::AuthResponse &response,
                       auth::Proof *serverProof, std::string *why) {
  backingOff_ = false;
  if (!awaiting_) {
    *why = "AuthResponse without a challenge: send Hello first";
    return false;
  }
  awaiting_ = false; // one answer per challenge
  const auth::Key *key = nullptr;
  for (const auth::Key &k : keys_)
    if (k.id == transcript_.keyId)
      key = &k;
  // An unknown key id fails exactly like a wrong proof, after the same
  // work, so neither answers nor their timing tell which ids exist.
  static const auth::Key kNoKey{"", std::vector<uint8_t>(32, 0)};
  auth::Proof expected;
  bool computed =
      auth::clientProof(key ? *key : kNoKey, transcript_, &expected);
  bool right = computed && key && response.proof() &&
               auth::sameProof(response.proof()->data(),
                               response.proof()->size(), expected);
  if (right) {
    // Accepted whatever the back-off says: it counts others' failures.
    if (!auth::serverProof(*key, transcript_, serverProof)) {
      *why = "the server could not compute its proof; try again";
      return false;
    }
    proven_ = key;
    return true;
  }
  uint64_t waitMs = 0;
  if (throttle_) {
    const uint64_t now = throttle_->nowMs();
    waitMs = throttle_->waitMs(source_, transcript_.keyId, now);
    throttle_->recordFailure(source_, transcript_.keyId, now);
  }
  backingOff_ = waitMs > 0;
  *why = "authentication failed: the server holds no key '" +
         transcript_.keyId +
         "' or the client's proof does not match it (RC_AUTH_KEY_FILE must "
         "hold a key of rc-server's --auth-key-file)";
  if (backingOff_)
    *why += "; more failed lately from " + source_ + " or naming key '" +
            transcript_.keyId + "': retry in " + std::to_string(waitMs) + " ms";
  return false;
}

const wire::Hello *HelloAuth::hello() const {
  return helloMessage_.empty()
             ? nullptr
             : wire::GetMessage(helloMessage_.data())->body_as_Hello();
}

} // namespace rc::server
