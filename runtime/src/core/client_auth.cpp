#include "core/client_auth.h"

#include "rc/auth/session_keys.h"

#include <algorithm>

namespace rc::rt {

bool ClientAuth::load(const std::string &keyFile, std::string *error) {
  file_ = keyFile;
  if (keyFile.empty())
    return true;
  std::vector<auth::Key> keys;
  if (!auth::loadKeyFile(keyFile, &keys, error)) {
    *error += " (RC_AUTH_KEY_FILE)";
    return false;
  }
  key_ = keys.front();
  transcript_.keyId = key_.id;
  if (!auth::randomBytes(transcript_.clientNonce.data(),
                         transcript_.clientNonce.size())) {
    *error = "no random bytes from the system for the handshake";
    return false;
  }
  return true;
}

std::vector<uint8_t> ClientAuth::nonce() const {
  return {transcript_.clientNonce.begin(), transcript_.clientNonce.end()};
}

bool ClientAuth::answer(const wire::AuthChallenge &challenge,
                        const uint8_t *hello, size_t helloSize,
                        std::vector<uint8_t> *response, std::string *error) {
  if (!hasKey()) {
    *error = "it requires authentication: set RC_AUTH_KEY_FILE to a copy of "
             "its key file (rc-server --auth-key-file)";
    return false;
  }
  const auto *serverNonce = challenge.server_nonce();
  if (!serverNonce || serverNonce->size() != auth::kNonceBytes) {
    *error = "its challenge is malformed (server_nonce of " +
             std::to_string(serverNonce ? serverNonce->size() : 0) +
             " bytes, expected " + std::to_string(auth::kNonceBytes) + ")";
    return false;
  }
  std::copy(serverNonce->begin(), serverNonce->end(),
            transcript_.serverNonce.begin());
  transcript_.sessionId = challenge.session_id();
  transcript_.helloDigest = auth::sha256(hello, helloSize);
  auth::Proof proof;
  if (!auth::clientProof(key_, transcript_, &proof)) {
    *error = "computing the answer to its challenge failed (libcrypto)";
    return false;
  }
  flatbuffers::FlatBufferBuilder fbb;
  auto body = wire::CreateAuthResponse(
      fbb, fbb.CreateVector(proof.data(), proof.size()));
  wire::FinishMessageBuffer(
      fbb, wire::CreateMessage(fbb, wire::Body::AuthResponse, body.Union()));
  response->assign(fbb.GetBufferPointer(),
                   fbb.GetBufferPointer() + fbb.GetSize());
  answered_ = true;
  return true;
}

bool ClientAuth::checkServer(const wire::HelloReply &reply,
                             std::string *error) const {
  if (!hasKey())
    return true;
  auth::Proof expected;
  if (answered_ && reply.auth_proof() &&
      auth::serverProof(key_, transcript_, &expected) &&
      auth::sameProof(reply.auth_proof()->data(), reply.auth_proof()->size(),
                      expected))
    return true;
  *error = answered_ ? "it did not prove that it holds key '" + key_.id +
                           "' of " + file_ + ": it is not the server you meant"
                     : "it did not ask for key '" + key_.id + "' of " + file_ +
                           " (it runs without --auth-key-file, or is not the "
                           "server you meant); unset RC_AUTH_KEY_FILE to use a "
                           "server without authentication";
  return false;
}

bool ClientAuth::sealIfAnnounced(const wire::AuthChallenge &challenge,
                                 transport::Connection &conn,
                                 std::string *error) {
  if (!challenge.seal_transport())
    return true;
  auth::SessionKeys keys;
  if (!answered_ || !auth::deriveSessionKeys(key_, transcript_, &keys)) {
    *error = "deriving the connection's keys failed (libcrypto)";
    return false;
  }
  transport::SealKeys seal;
  seal.send.key = keys.clientToServer.key;
  seal.send.iv = keys.clientToServer.iv;
  seal.receive.key = keys.serverToClient.key;
  seal.receive.iv = keys.serverToClient.iv;
  if (!conn.seal(seal, /*oneClearMessage=*/true, error))
    return false;
  sealed_ = true;
  return true;
}

bool ClientAuth::checkSealed(const transport::Connection &conn,
                             std::string *error) const {
  if (!sealed_ || conn.lastReceivedSealed())
    return true;
  *error = "it announced an encrypted connection, but its reply came in the "
           "clear: it was not the server's (changed in transit)";
  return false;
}

std::unique_ptr<transport::Connection>
connectProvingKey(const std::string &url, const std::string &keyFile,
                  int timeoutMs, std::string *error) {
  transport::AdmissionKey admission;
  if (!keyFile.empty()) {
    std::vector<auth::Key> keys;
    if (!auth::loadKeyFile(keyFile, &keys, error)) {
      *error += " (RC_AUTH_KEY_FILE)";
      return nullptr;
    }
    auth::Key key = keys.front();
    admission.keyId = key.id;
    admission.prove = [key](const std::vector<uint8_t> &transcript,
                            std::array<uint8_t, 32> *proof) {
      return auth::admissionProof(key, transcript, proof);
    };
  }
  return transport::connect(url, timeoutMs, admission, error);
}

} // namespace rc::rt
