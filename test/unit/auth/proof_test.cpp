// The handshake proofs: keyed, covering every transcript field, different
// for each direction, and compared exactly.
#include "rc/auth/proof.h"

#include <gtest/gtest.h>

#include <set>

using namespace rc::auth;

namespace {

Key key(uint8_t fill) { return Key{"k", std::vector<uint8_t>(32, fill)}; }

Transcript transcript() {
  Transcript t;
  t.keyId = "k";
  t.clientNonce.fill(1);
  t.serverNonce.fill(2);
  t.sessionId = 7;
  t.helloDigest = sha256("hello", 5);
  return t;
}

Proof client(const Key &k, const Transcript &t) {
  Proof p;
  EXPECT_TRUE(clientProof(k, t, &p));
  return p;
}

TEST(Proof, IsHmacSha256OfTheTranscriptUnderTheKey) {
  Transcript t = transcript();
  EXPECT_EQ(client(key(3), t), client(key(3), t)); // deterministic
  EXPECT_NE(client(key(3), t), client(key(4), t)); // keyed
  Proof server;
  ASSERT_TRUE(serverProof(key(3), t, &server));
  EXPECT_NE(server, client(key(3), t)); // one direction is not the other
}

TEST(Proof, CoversEveryTranscriptField) {
  std::set<Proof> seen{client(key(3), transcript())};
  Transcript t = transcript();
  t.keyId = "k2";
  seen.insert(client(key(3), t));
  t = transcript();
  t.clientNonce[31] ^= 1;
  seen.insert(client(key(3), t));
  t = transcript();
  t.serverNonce[0] ^= 1;
  seen.insert(client(key(3), t));
  t = transcript();
  t.sessionId = 8;
  seen.insert(client(key(3), t));
  t = transcript();
  t.helloDigest = sha256("hellO", 5);
  seen.insert(client(key(3), t));
  EXPECT_EQ(seen.size(), 6u);
}

TEST(Proof, SameProofIsExact) {
  Proof p = client(key(3), transcript());
  EXPECT_TRUE(sameProof(p.data(), p.size(), p));
  Proof q = p;
  q[31] ^= 0x80;
  EXPECT_FALSE(sameProof(q.data(), q.size(), p));
  EXPECT_FALSE(sameProof(p.data(), p.size() - 1, p));
  EXPECT_FALSE(sameProof(nullptr, 0, p));
}

TEST(Proof, Sha256MatchesTheStandard) {
  // FIPS 180-2, appendix B.1: SHA-256("abc").
  Digest d = sha256("abc", 3);
  EXPECT_EQ(d[0], 0xba);
  EXPECT_EQ(d[1], 0x78);
  EXPECT_EQ(d[31], 0xad);
}

TEST(Proof, RandomBytesDiffer) {
  Nonce a{}, b{};
  ASSERT_TRUE(randomBytes(a.data(), a.size()));
  ASSERT_TRUE(randomBytes(b.data(), b.size()));
  EXPECT_NE(a, b);
}

} // namespace
