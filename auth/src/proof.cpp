#include "rc/auth/proof.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <climits>
#include <cstring>
#include <vector>

namespace rc::auth {

namespace {

void appendU64(std::vector<uint8_t> &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(uint8_t(v >> (8 * i)));
}

// The HMAC input: a label naming the direction, then every field with its
// length where it has one, so no two transcripts encode to the same bytes.
bool prove(const char *label, const Key &key, const Transcript &t, Proof *out) {
  std::vector<uint8_t> msg(label, label + std::strlen(label) + 1);
  appendU64(msg, t.keyId.size());
  msg.insert(msg.end(), t.keyId.begin(), t.keyId.end());
  msg.insert(msg.end(), t.clientNonce.begin(), t.clientNonce.end());
  msg.insert(msg.end(), t.serverNonce.begin(), t.serverNonce.end());
  appendU64(msg, t.sessionId);
  msg.insert(msg.end(), t.helloDigest.begin(), t.helloDigest.end());
  unsigned int len = 0;
  return HMAC(EVP_sha256(), key.secret.data(), int(key.secret.size()),
              msg.data(), msg.size(), out->data(), &len) != nullptr &&
         len == out->size();
}

} // namespace

bool randomBytes(uint8_t *out, size_t size) {
  return size <= size_t(INT_MAX) && RAND_bytes(out, int(size)) == 1;
}

Digest sha256(const void *data, size_t size) {
  Digest out{};
  SHA256(static_cast<const unsigned char *>(data), size, out.data());
  return out;
}

bool clientProof(const Key &key, const Transcript &t, Proof *out) {
  return prove("rc-auth-v1 client proof", key, t, out);
}

bool serverProof(const Key &key, const Transcript &t, Proof *out) {
  return prove("rc-auth-v1 server proof", key, t, out);
}

bool admissionProof(const Key &key, const std::vector<uint8_t> &transcript,
                    Proof *out) {
  static const char kLabel[] = "rc-auth-v1 admission proof";
  std::vector<uint8_t> msg(kLabel, kLabel + sizeof kLabel);
  msg.insert(msg.end(), transcript.begin(), transcript.end());
  unsigned int len = 0;
  return !key.secret.empty() &&
         HMAC(EVP_sha256(), key.secret.data(), int(key.secret.size()),
              msg.data(), msg.size(), out->data(), &len) != nullptr &&
         len == out->size();
}

bool sameProof(const uint8_t *given, size_t size, const Proof &expected) {
  return given && size == expected.size() &&
         CRYPTO_memcmp(given, expected.data(), expected.size()) == 0;
}

} // namespace rc::auth
