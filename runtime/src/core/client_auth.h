// The client's side of authentication (docs/security.md): the key it holds
// (the first of RC_AUTH_KEY_FILE), the Hello fields that name it, the answer
// to the server's challenge, and the check of the server's own proof, so a
// client with a key talks only to a server that holds the same key.
#ifndef RC_RT_CLIENT_AUTH_H
#define RC_RT_CLIENT_AUTH_H

#include "protocol_generated.h"
#include "rc/auth/proof.h"
#include "rc/transport.h"

#include <memory>
#include <string>
#include <vector>

namespace rc::rt {

class ClientAuth {
public:
  // Reads the key file (empty path: no key) and draws this handshake's
  // nonce. False with *error on an unusable file.
  bool load(const std::string &keyFile, std::string *error);
  bool hasKey() const { return !key_.id.empty(); }
  // For the Hello: the key's id and the nonce (only with a key).
  const std::string &keyId() const { return key_.id; }
  std::vector<uint8_t> nonce() const;

  // The AuthResponse message answering `challenge`; `hello` is the whole
  // Hello message that was sent, which the proofs cover.
  bool answer(const wire::AuthChallenge &challenge, const uint8_t *hello,
              size_t helloSize, std::vector<uint8_t> *response,
              std::string *error);
  // Whether `reply` proves the server holds the key too (it must, once the
  // client has a key: it may not fall back to a server that asked for none).
  bool checkServer(const wire::HelloReply &reply, std::string *error) const;

  // After answer() went out: when the challenge said the server seals the
  // connection (docs/security.md, "Encryption in transit"), installs this
  // handshake's keys on `conn`, which then still takes one clear message:
  // the server's refusal, sent before it had keys.
  bool sealIfAnnounced(const wire::AuthChallenge &challenge,
                       transport::Connection &conn, std::string *error);
  // A reply that opens a session (or redirects) must have come sealed when
  // sealing was announced: a clear one was not the server's.
  bool checkSealed(const transport::Connection &conn, std::string *error) const;

private:
  std::string file_;
  auth::Key key_;
  auth::Transcript transcript_;
  bool answered_ = false;
  bool sealed_ = false;
};

// Connects to `url`, proving the first key of `keyFile` (empty: none) to a
// listener that asks for one before it opens anything for this client
// (rc/transport.h, "Admission").
std::unique_ptr<transport::Connection>
connectProvingKey(const std::string &url, const std::string &keyFile,
                  int timeoutMs, std::string *error);

} // namespace rc::rt

#endif
