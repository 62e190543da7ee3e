// Admission (docs/design/preauth-admission.md, "Admission"): a listener with an
// admission check opens nothing for a client (no private endpoint, no shm
// region) before it proved a key; a right key still connects beside a guesser;
// challenges are small records, bounded, single use. Over tcp and shm.
#include "rc/transport.h"

#include "admission.h"
#include "endpoint.h"
#include "raw_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <atomic>
#include <cstring>
#include <thread>

using namespace rc::transport;
using namespace rc::transport::test;

namespace {

const std::vector<uint8_t> kSecret(32, 0x5a);

bool hmac(const std::vector<uint8_t> &secret,
          const std::vector<uint8_t> &transcript,
          std::array<uint8_t, 32> *out) {
  unsigned int len = 0;
  return HMAC(EVP_sha256(), secret.data(), int(secret.size()),
              transcript.data(), transcript.size(), out->data(),
              &len) != nullptr &&
         len == out->size();
}

AdmissionKey keyOf(const std::string &id, std::vector<uint8_t> secret) {
  AdmissionKey k;
  k.keyId = id;
  k.prove = [secret](const std::vector<uint8_t> &t,
                     std::array<uint8_t, 32> *p) { return hmac(secret, t, p); };
  return k;
}

class Admission : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    ListenOptions o;
    o.handshakeMs = 2000;
    o.admit = [this](const AdmissionClaim &c, std::string *why) {
      std::array<uint8_t, 32> expected;
      ++checks;
      if (c.keyId == "team" && hmac(kSecret, c.transcript, &expected) &&
          CRYPTO_memcmp(expected.data(), c.proof.data(), 32) == 0)
        return true;
      *why = "wrong key for '" + c.keyId + "'";
      return false;
    };
    std::string err;
    listener_ = listen(listenUrl(GetParam()), o, &err);
    ASSERT_TRUE(listener_) << err;
    url_ = listener_->address();
    acceptor_ = std::thread([this] {
      while (!stop_)
        if (auto c = listener_->accept(50)) {
          ++accepted;
          std::lock_guard<std::mutex> g(mu_);
          connections_.push_back(std::move(c));
        }
    });
  }
  void TearDown() override {
    stop_ = true;
    if (acceptor_.joinable())
      acceptor_.join();
  }

  std::unique_ptr<Listener> listener_;
  std::string url_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted{0}, checks{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> connections_;
};

// A peer without the key gets no endpoint: the only endpoints this process
// opens are the clients' own (one per attempt), and accept() returns none.
TEST_P(Admission, APeerWithoutTheKeyNeverGetsAnEndpoint) {
  const uint64_t before = detail::Endpoint::opened();
  std::string err;
  EXPECT_EQ(connect(url_, 5000, &err), nullptr);
  EXPECT_NE(err.find("prove they hold one of its keys"), std::string::npos)
      << err;
  EXPECT_EQ(
      connect(url_, 5000, keyOf("team", std::vector<uint8_t>(32, 1)), &err),
      nullptr);
  EXPECT_NE(err.find("refused admission: wrong key for 'team'"),
            std::string::npos)
      << err;
  EXPECT_EQ(connect(url_, 5000, keyOf("nobody", kSecret), &err), nullptr);
  EXPECT_NE(err.find("wrong key for 'nobody'"), std::string::npos) << err;
  RawPeer silent;
  ASSERT_TRUE(silent.connect(url_, 5000, &err)) << err;
  EXPECT_TRUE(silent.challenged());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(accepted.load(), 0);
  EXPECT_EQ(detail::Endpoint::opened() - before, 4u)
      << "the listener opened an endpoint for a peer without the key";
  EXPECT_EQ(checks.load(), 2);

  // The right key: one endpoint on each side, and a working connection.
  auto c = connect(url_, 5000, keyOf("team", kSecret), &err);
  ASSERT_TRUE(c) << err;
  for (int i = 0; i < 100 && accepted.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(accepted.load(), 1);
  EXPECT_EQ(detail::Endpoint::opened() - before, 6u);
  const char ping[] = "ping";
  ASSERT_EQ(c->send(ping, sizeof ping), Status::Ok);
  std::unique_ptr<Connection> server;
  {
    std::lock_guard<std::mutex> g(mu_);
    ASSERT_EQ(connections_.size(), 1u);
    server = std::move(connections_[0]);
  }
  std::vector<uint8_t> m;
  ASSERT_EQ(server->recv(m, 5000), Status::Ok);
  EXPECT_EQ(std::string(reinterpret_cast<char *>(m.data())), "ping");
}

// A guesser answering every challenge wrongly, as fast as it can, beside
// key holders who connect one after another: every key holder gets in,
// the guesser never.
TEST_P(Admission, ARightKeyConnectsBesideAGuesser) {
  std::atomic<bool> stop{false};
  std::atomic<int> guesses{0}, guesserIn{0};
  std::thread guesser([&] {
    while (!stop) {
      std::string err;
      if (connect(url_, 2000, keyOf("team", std::vector<uint8_t>(32, 7)), &err))
        ++guesserIn;
      else if (err.find("wrong key") != std::string::npos)
        ++guesses;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int in = 0;
  for (int i = 0; i < 8; ++i) {
    std::string err;
    auto c = connect(url_, 5000, keyOf("team", kSecret), &err);
    in += c != nullptr;
    EXPECT_TRUE(c) << err;
  }
  stop = true;
  guesser.join();
  std::printf("[ admission ] %s: %d of 8 key holders in beside %d wrong "
              "proofs\n",
              GetParam().c_str(), in, guesses.load());
  EXPECT_EQ(in, 8);
  EXPECT_EQ(guesserIn.load(), 0);
  EXPECT_GT(guesses.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Transports, Admission, ::testing::Values("tcp", "shm"),
                         [](const auto &info) { return info.param; });

// The listener's table: fixed records, at most `max`, the oldest pushed
// out, each taken once.
TEST(PendingChallengesTest, BoundedOldestOutAndSingleUse) {
  detail::PendingChallenges table(3, 60000);
  std::vector<detail::AdmissionNonce> nonces;
  for (uint64_t i = 0; i < 5; ++i) {
    detail::PendingChallenges::Entry *e = nullptr;
    std::optional<detail::PendingChallenges::Entry> out;
    ASSERT_TRUE(table.issue(i, 100 + i, &e, &out));
    EXPECT_EQ(out.has_value(), i >= 3);
    if (out)
      EXPECT_EQ(out->requestNonce, i - 3) << "not the oldest pushed out";
    nonces.push_back(e->serverNonce);
  }
  EXPECT_EQ(table.size(), 3u);
  EXPECT_FALSE(table.take(nonces[0])) << "pushed out, yet still there";
  ASSERT_TRUE(table.take(nonces[4]));
  EXPECT_FALSE(table.take(nonces[4])) << "a challenge answered twice";
  EXPECT_NE(nonces[3], nonces[4]);
  EXPECT_TRUE(table.find(3, 103));
  EXPECT_FALSE(table.find(3, 999)) << "another address, the same nonce";

  detail::PendingChallenges quick(8, 50);
  detail::PendingChallenges::Entry *e = nullptr;
  std::optional<detail::PendingChallenges::Entry> out;
  ASSERT_TRUE(quick.issue(1, 1, &e, &out));
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  std::vector<detail::PendingChallenges::Entry> expired;
  quick.expire(&expired);
  EXPECT_EQ(expired.size(), 1u);
  EXPECT_EQ(quick.size(), 0u);
}

// Malformed admission frames are refused whole, never read past their end.
TEST(AdmissionFramesTest, TruncatedOrOversizedFramesAreRefused) {
  detail::Prove p;
  p.keyId = "team";
  p.request = {1, 2, 3};
  std::vector<uint8_t> f = detail::encodeProve(p);
  const size_t header = sizeof(detail::FrameHeader);
  detail::Prove back;
  ASSERT_TRUE(detail::decodeProve(f.data() + header, f.size() - header, &back));
  EXPECT_EQ(back.keyId, "team");
  EXPECT_EQ(back.request, p.request);
  for (size_t n = 0; n + 1 < f.size() - header; ++n)
    EXPECT_FALSE(detail::decodeProve(f.data() + header, n, &back)) << n;
  std::vector<uint8_t> longer = f;
  longer.push_back(0);
  EXPECT_FALSE(detail::decodeProve(longer.data() + header,
                                   longer.size() - header, &back));
  detail::Refusal r{7, true, std::string(2000, 'x')};
  std::vector<uint8_t> rf = detail::encodeRefusal(r);
  detail::Refusal rb;
  detail::FrameHeader h;
  std::memcpy(&h, rf.data(), header);
  ASSERT_TRUE(
      detail::decodeRefusal(h, rf.data() + header, rf.size() - header, &rb));
  EXPECT_FALSE(detail::decodeRefusal(h, rf.data() + header, 3, &rb))
      << "a text shorter than announced";
  EXPECT_EQ(detail::encodeChallenge({1, {}}).size(), 64u)
      << "a challenge no longer fits tcp's inject size";
  EXPECT_EQ(rb.why.size(), detail::kMaxRefusalText);
  EXPECT_TRUE(rb.mayRetry);
}

} // namespace
