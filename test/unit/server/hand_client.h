// A client's half of rc-server's handshake by hand, step by step, over a
// real transport: a test can hold a challenge open, record and replay
// messages, guess keys, carry a ticket it took from another client's
// redirect, or reserve workers and never come.
#ifndef RC_SERVER_TEST_HAND_CLIENT_H
#define RC_SERVER_TEST_HAND_CLIENT_H

#include "rc/auth/proof.h"
#include "rc/transport.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rc::server::test {

// What a client proves to a listener with keys before it opens anything
// (rc/transport.h, "Admission"): `key`, as the runtime proves it.
inline transport::AdmissionKey admissionKeyOf(const auth::Key &key) {
  transport::AdmissionKey a;
  a.keyId = key.id;
  a.prove = [key](const std::vector<uint8_t> &transcript,
                  std::array<uint8_t, 32> *proof) {
    return auth::admissionProof(key, transcript, proof);
  };
  return a;
}

// transport::connect proving `key` (a server with keys asks for it).
inline std::unique_ptr<transport::Connection>
connectWithKey(const std::string &url, const auth::Key &key, int timeoutMs,
               std::string *error) {
  return transport::connect(url, timeoutMs, admissionKeyOf(key), error);
}

struct HandClient {
  std::unique_ptr<transport::Connection> conn;
  auth::Transcript transcript;
  Bytes hello, answer;
  // The key proved to the listener before it opens a connection
  // (admission; a server with keys asks for one): none unless set, and
  // handshake() sets its own key.
  std::optional<auth::Key> admitWith;

  // Connects and sends the Hello (naming `keyId`, with `ticket` if any);
  // the server's answer (a challenge, or a refusal). Empty when the
  // transport failed (with *error when given, else a test failure).
  Bytes start(const std::string &url, uint64_t manifestHash,
              const std::string &keyId, const Bytes &ticket = {},
              std::string *error = nullptr) {
    std::string err;
    conn = transport::connect(url, 5000,
                              admitWith ? admissionKeyOf(*admitWith)
                                        : transport::AdmissionKey(),
                              &err);
    if (!conn) {
      if (error)
        *error = err;
      else
        ADD_FAILURE() << url << ": " << err;
      return {};
    }
    Bytes nonce(32);
    auth::randomBytes(nonce.data(), nonce.size());
    hello = authHello({manifestHash}, keyId, nonce, ticket);
    Bytes reply = exchange(hello, error);
    if (const wire::AuthChallenge *c = asAuthChallenge(reply)) {
      transcript.keyId = keyId;
      std::copy(nonce.begin(), nonce.end(), transcript.clientNonce.begin());
      std::copy(c->server_nonce()->begin(), c->server_nonce()->end(),
                transcript.serverNonce.begin());
      transcript.sessionId = c->session_id();
      transcript.helloDigest = auth::sha256(hello.data(), hello.size());
    }
    return reply;
  }
  // Answers with a proof under `key`, or with `recorded` when given.
  Bytes finish(const auth::Key &key, const Bytes *recorded = nullptr,
               std::string *error = nullptr) {
    auth::Proof proof;
    EXPECT_TRUE(auth::clientProof(key, transcript, &proof));
    answer =
        recorded ? *recorded : authResponse(Bytes(proof.begin(), proof.end()));
    return conn ? exchange(answer, error) : Bytes();
  }
  // The whole handshake with `key`: the HelloReply (or refusal).
  Bytes handshake(const std::string &url, uint64_t manifestHash,
                  const auth::Key &key, const Bytes &ticket = {},
                  std::string *error = nullptr) {
    if (!admitWith)
      admitWith = key;
    Bytes reply = start(url, manifestHash, key.id, ticket, error);
    return asAuthChallenge(reply) ? finish(key, nullptr, error) : reply;
  }

private:
  Bytes exchange(const Bytes &message, std::string *error) {
    if (!error)
      return roundTrip(*conn, message, 5000);
    Bytes reply;
    if (conn->send(message.data(), message.size()) != transport::Status::Ok ||
        conn->recv(reply, 5000) != transport::Status::Ok) {
      *error = conn->lastError();
      return {};
    }
    return reply;
  }
};

// Why `reply` refused the session ("(not refused)" when it did not).
inline std::string refusalOf(const Bytes &reply) {
  const wire::HelloReply *hr = asHelloReply(reply);
  return hr && !hr->ok() && hr->error() ? hr->error()->str() : "(not refused)";
}

inline bool opened(const Bytes &reply) {
  const wire::HelloReply *hr = asHelloReply(reply);
  return hr && hr->ok();
}

// A supervisor's redirect in `reply` (--isolation process), resolved
// against `url`: the worker's address and the ticket ("" / empty if none).
struct Redirected {
  std::string url;
  Bytes ticket;
};
inline Redirected redirectIn(const Bytes &reply, const std::string &url) {
  Redirected r;
  const wire::HelloReply *hr = asHelloReply(reply);
  if (!hr || !hr->redirect() || !hr->ticket())
    return r;
  std::string err;
  r.url = transport::redirectUrl(hr->redirect()->str(), url, &err);
  r.ticket.assign(hr->ticket()->begin(), hr->ticket()->end());
  return r;
}

} // namespace rc::server::test

#endif
