#include "record_cipher.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <climits>
#include <cstring>

namespace rc::transport::detail {

namespace {
// One fetch for the process: EVP_aes_256_gcm() would look the
// implementation up again at every key change.
const EVP_CIPHER *aesGcm() {
  static EVP_CIPHER *cipher = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
  return cipher;
}
} // namespace

RecordCipher::RecordCipher(const TrafficKey &key, uint32_t stream, Mode mode)
    : ctx_(EVP_CIPHER_CTX_new()), mode_(mode) {
  std::memcpy(iv_, key.iv.data(), sizeof iv_);
  for (int i = 0; i < 4; ++i)
    iv_[i] ^= uint8_t(stream >> (24 - 8 * i));
  if (ctx_ && aesGcm())
    ok_ = (mode_ == Mode::Seal
               ? EVP_EncryptInit_ex(ctx_, aesGcm(), nullptr, key.key.data(),
                                    nullptr)
               : EVP_DecryptInit_ex(ctx_, aesGcm(), nullptr, key.key.data(),
                                    nullptr)) == 1;
}

RecordCipher::~RecordCipher() { EVP_CIPHER_CTX_free(ctx_); }

bool RecordCipher::begin(uint64_t number, const void *aad, size_t aadSize) {
  if (!ok_ || aadSize > size_t(INT_MAX))
    return false;
  // The record number, big-endian, into the IV's last 8 bytes.
  uint8_t nonce[12];
  std::memcpy(nonce, iv_, sizeof nonce);
  for (int i = 0; i < 8; ++i)
    nonce[4 + i] ^= uint8_t(number >> (56 - 8 * i));
  int n = 0;
  const auto *a = static_cast<const unsigned char *>(aad);
  if (mode_ == Mode::Seal)
    return EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, nonce) == 1 &&
           (!aadSize ||
            EVP_EncryptUpdate(ctx_, nullptr, &n, a, int(aadSize)) == 1);
  return EVP_DecryptInit_ex(ctx_, nullptr, nullptr, nullptr, nonce) == 1 &&
         (!aadSize ||
          EVP_DecryptUpdate(ctx_, nullptr, &n, a, int(aadSize)) == 1);
}

bool RecordCipher::update(const uint8_t *in, uint8_t *out, size_t size) {
  // EVP takes int lengths: larger pieces go in steps.
  constexpr size_t kStep = size_t(1) << 30;
  while (size) {
    size_t now = size < kStep ? size : kStep;
    int n = 0;
    int ok = mode_ == Mode::Seal
                 ? EVP_EncryptUpdate(ctx_, out, &n, in, int(now))
                 : EVP_DecryptUpdate(ctx_, out, &n, in, int(now));
    if (ok != 1 || size_t(n) != now)
      return false;
    in += now, out += now, size -= now;
  }
  return true;
}

bool RecordCipher::finishSeal(uint8_t tag[kRecordTagBytes]) {
  int n = 0;
  uint8_t none[16];
  return EVP_EncryptFinal_ex(ctx_, none, &n) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_GET_TAG, int(kRecordTagBytes),
                             tag) == 1;
}

bool RecordCipher::finishOpen(const uint8_t tag[kRecordTagBytes]) {
  int n = 0;
  uint8_t none[16];
  return EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_SET_TAG, int(kRecordTagBytes),
                             const_cast<uint8_t *>(tag)) == 1 &&
         EVP_DecryptFinal_ex(ctx_, none, &n) == 1;
}

bool RecordCipher::seal(uint64_t number, const void *aad, size_t aadSize,
                        const uint8_t *in, uint8_t *out, size_t size,
                        uint8_t tag[kRecordTagBytes]) {
  return begin(number, aad, aadSize) && update(in, out, size) &&
         finishSeal(tag);
}

bool RecordCipher::open(uint64_t number, const void *aad, size_t aadSize,
                        const uint8_t *in, uint8_t *out, size_t size,
                        const uint8_t tag[kRecordTagBytes]) {
  return begin(number, aad, aadSize) && update(in, out, size) &&
         finishOpen(tag);
}

} // namespace rc::transport::detail
