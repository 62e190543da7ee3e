#include "rc/auth/session_keys.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <cstring>
#include <vector>

namespace rc::auth {

namespace {

void appendU64(std::vector<uint8_t> &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(uint8_t(v >> (8 * i)));
}

// HKDF-SHA256 (RFC 5869): extract with the two nonces as salt, expand with
// a label naming the direction and the rest of the transcript, so the two
// directions' keys differ and keys of another key id, session or Hello
// could not coincide.
bool expand(const Key &key, const Transcript &t, const char *label,
            DirectionKey *out) {
  std::vector<uint8_t> salt(t.clientNonce.begin(), t.clientNonce.end());
  salt.insert(salt.end(), t.serverNonce.begin(), t.serverNonce.end());
  std::vector<uint8_t> info(label, label + std::strlen(label) + 1);
  appendU64(info, t.keyId.size());
  info.insert(info.end(), t.keyId.begin(), t.keyId.end());
  appendU64(info, t.sessionId);
  info.insert(info.end(), t.helloDigest.begin(), t.helloDigest.end());

  EVP_KDF *kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
  EVP_KDF_free(kdf);
  if (!ctx)
    return false;
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(
          OSSL_KDF_PARAM_KEY, const_cast<uint8_t *>(key.secret.data()),
          key.secret.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt.data(),
                                        salt.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(),
                                        info.size()),
      OSSL_PARAM_construct_end()};
  uint8_t material[sizeof out->key + sizeof out->iv];
  bool ok = EVP_KDF_derive(ctx, material, sizeof material, params) == 1;
  EVP_KDF_CTX_free(ctx);
  if (ok) {
    std::memcpy(out->key.data(), material, out->key.size());
    std::memcpy(out->iv.data(), material + out->key.size(), out->iv.size());
  }
  OPENSSL_cleanse(material, sizeof material);
  return ok;
}

} // namespace

bool deriveSessionKeys(const Key &key, const Transcript &t, SessionKeys *out) {
  return !key.secret.empty() &&
         expand(key, t, "rc-transport-v1 client to server",
                &out->clientToServer) &&
         expand(key, t, "rc-transport-v1 server to client",
                &out->serverToClient);
}

} // namespace rc::auth
