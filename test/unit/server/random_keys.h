// Keys made in a test, and their lines in a key file (`ID HEX`), for the
// tests that write key files of several tenants and rewrite them.
#ifndef RC_TEST_RANDOM_KEYS_H
#define RC_TEST_RANDOM_KEYS_H

#include "rc/auth/key_file.h"
#include "rc/auth/proof.h"
#include "rc/hex.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rc::server::test {

// A fresh 32-byte key named `id`, as rc-server keygen makes.
inline rc::auth::Key randomKey(const std::string &id) {
  rc::auth::Key k{id, std::vector<uint8_t>(32)};
  EXPECT_TRUE(rc::auth::randomBytes(k.secret.data(), k.secret.size()));
  return k;
}

// `k`'s line in a key file.
inline std::string keyLine(const rc::auth::Key &k) {
  return k.id + " " + rc::hexBytes(k.secret.data(), k.secret.size()) + "\n";
}

} // namespace rc::server::test

#endif
