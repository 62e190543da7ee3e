// rc-server's authentication options, as an operator uses them: keygen,
// --auth-key-file (and its permission check), the refusal to serve a
// non-loopback address without keys unless --insecure, the removed
// --auth-token, and the challenge-response handshake over real tcp: the
// right key, a wrong key, a replayed answer and the back-off after it,
// which never keeps out a right proof.
#include "hand_client.h"
#include "key_dir.h"
#include "process_util.h"
#include "rc/auth/key_file.h"
#include "rc/auth/proof.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <sys/stat.h>
#include <thread>

using namespace rc::server::test;
using rc::test::KeyDir;

namespace {

TEST(AuthCli, KeygenWritesAPrivateKeyFileAndNeverOverwritesIt) {
  KeyDir dir;
  std::string file = dir.path + "/server.key";
  Child gen({"keygen", file, "--key-id", "tenant-1"});
  EXPECT_EQ(gen.wait(), 0) << gen.text;
  EXPECT_NE(gen.text.find("--auth-key-file " + file), std::string::npos)
      << gen.text;
  struct stat st{};
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::vector<rc::auth::Key> keys;
  std::string error;
  ASSERT_TRUE(rc::auth::loadKeyFile(file, &keys, &error)) << error;
  EXPECT_EQ(keys.at(0).id, "tenant-1");

  Child again({"keygen", file});
  EXPECT_EQ(again.wait(), 1);
  EXPECT_NE(again.text.find("never overwritten"), std::string::npos)
      << again.text;
  Child none({"keygen"});
  EXPECT_EQ(none.wait(), 2);
  EXPECT_NE(none.text.find("keygen needs the key file"), std::string::npos);
  Child badId({"keygen", dir.path + "/x", "--key-id=a b"});
  EXPECT_EQ(badId.wait(), 2);
  EXPECT_NE(badId.text.find("key id 'a b'"), std::string::npos);
}

class AuthServerTest : public ::testing::Test {
protected:
  void SetUp() override {
    m = writeTestManifest();
    keyFile = dir.newKey("server.key");
    std::string error;
    std::vector<rc::auth::Key> keys;
    ASSERT_TRUE(rc::auth::loadKeyFile(keyFile, &keys, &error)) << error;
    key = keys.at(0);
  }
  std::vector<std::string> serve(const std::string &url,
                                 std::vector<std::string> extra) {
    std::vector<std::string> args{"--listen", url, "--manifest", m.path,
                                  "--test-device"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  KeyDir dir;
  TestManifest m;
  std::string keyFile;
  rc::auth::Key key;
};

TEST_F(AuthServerTest, AKeyFileOthersCanReadIsRefusedAtStart) {
  chmod(keyFile.c_str(), 0640);
  Child server(serve("shm://rc_auth_cli_" + std::to_string(getpid()),
                     {"--auth-key-file", keyFile}));
  EXPECT_EQ(server.wait(), 1) << server.text;
  EXPECT_NE(server.text.find("refusing key file " + keyFile), std::string::npos)
      << server.text;
  EXPECT_NE(server.text.find("chmod 600"), std::string::npos) << server.text;
}

TEST_F(AuthServerTest, AnyAddressNeedsKeysOrInsecure) {
  std::string any = "tcp://0.0.0.0:" + std::to_string(freePort());
  Child open(serve(any, {}));
  // (A server that does start is killed when `open` goes, not waited for.)
  ASSERT_TRUE(open.waitFor("refusing", 10000)) << open.text;
  EXPECT_EQ(open.wait(), 2) << open.text;
  EXPECT_NE(open.text.find("refusing to listen on " + any +
                           " without authentication"),
            std::string::npos)
      << open.text;
  EXPECT_NE(open.text.find("--auth-key-file"), std::string::npos);
  EXPECT_NE(open.text.find("--insecure"), std::string::npos);

  Child insecure(serve(any, {"--insecure"}));
  EXPECT_TRUE(insecure.waitFor("listening on", 10000)) << insecure.text;
  EXPECT_NE(insecure.text.find("without authentication (--insecure)"),
            std::string::npos)
      << insecure.text;
  EXPECT_NE(insecure.text.find("no authentication"), std::string::npos);
  kill(insecure.pid, SIGTERM);
  EXPECT_EQ(insecure.wait(), 0);

  Child keyed(serve(any, {"--auth-key-file", keyFile}));
  EXPECT_TRUE(keyed.waitFor("listening on", 10000)) << keyed.text;
  EXPECT_NE(keyed.text.find("clients authenticate (1 key)"), std::string::npos)
      << keyed.text;
}

TEST_F(AuthServerTest, LoopbackAndShmNeedNoKeys) {
  for (std::string url :
       {"tcp://127.0.0.1:" + std::to_string(freePort()),
        "tcp://localhost:" + std::to_string(freePort()),
        "shm://rc_auth_cli_open_" + std::to_string(getpid())}) {
    Child server(serve(url, {}));
    EXPECT_TRUE(server.waitFor("listening on", 10000)) << url << server.text;
  }
}

TEST_F(AuthServerTest, MisusedOptionsExitTwoNamingTheFix) {
  struct Case {
    std::vector<std::string> extra;
    std::string message;
  } cases[] = {
      {{"--auth-token", "s3cret"}, "--auth-token was removed"},
      {{"--auth-token", "s3cret"}, "rc-server keygen FILE"},
      {{"--insecure", "--auth-key-file", "k"}, "contradict each other"},
      {{"--insecure=yes"}, "--insecure takes no value"},
      {{"--auth-key-file"}, "--auth-key-file needs a file name"},
  };
  for (const Case &k : cases) {
    Child c(serve("tcp://127.0.0.1:1", k.extra));
    EXPECT_EQ(c.wait(), 2) << c.text;
    EXPECT_NE(c.text.find(k.message), std::string::npos) << c.text;
  }
}

#ifdef RC_TEST_HAVE_TRANSPORT
std::string refusal(const Bytes &reply) { return refusalOf(reply); }

TEST_F(AuthServerTest, ChallengeResponseOverTcp) {
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server(serve(url, {"--auth-key-file", keyFile}));
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;

  // Key holders all (the listener admits nobody else, below): what the
  // Hello's own challenge refuses.
  HandClient good;
  good.admitWith = key;
  ASSERT_NE(asAuthChallenge(good.start(url, m.hash, key.id)), nullptr);
  Bytes reply = good.finish(key);
  ASSERT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok())
      << refusal(reply);

  // A recorded answer replayed on a fresh connection.
  HandClient replay;
  replay.admitWith = key;
  ASSERT_NE(asAuthChallenge(replay.start(url, m.hash, key.id)), nullptr);
  std::string why = refusal(replay.finish(key, &good.answer));
  EXPECT_NE(why.find("authentication failed"), std::string::npos) << why;
  EXPECT_TRUE(server.waitFor("authentication failed", 5000)) << server.text;

  // Failures make this host back off: a wrong answer right after another
  // is told so, and a right one, to a challenge given before, gets in.
  HandClient pending, wrong, wrongAgain;
  pending.admitWith = wrong.admitWith = wrongAgain.admitWith = key;
  ASSERT_NE(asAuthChallenge(pending.start(url, m.hash, key.id)), nullptr);
  ASSERT_NE(asAuthChallenge(wrong.start(url, m.hash, key.id)), nullptr);
  ASSERT_NE(asAuthChallenge(wrongAgain.start(url, m.hash, key.id)), nullptr);
  why = refusal(wrong.finish({key.id, Bytes(32, 0x33)}));
  EXPECT_NE(why.find("authentication failed"), std::string::npos) << why;
  why = refusal(wrongAgain.finish({key.id, Bytes(32, 0x33)}));
  EXPECT_NE(why.find("authentication failed"), std::string::npos) << why;
  EXPECT_NE(why.find("retry in"), std::string::npos) << why;
  reply = pending.finish(key);
  EXPECT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok())
      << refusal(reply);
}

// A guesser on this host answers every admission challenge (the first
// thing a server with keys asks, before it opens any connection) with a
// wrong secret, as fast as it can, naming the honest clients' key id or
// another: it never gets a connection, and is told to back off; the honest
// clients beside it, from the same host, all get in.
void guessBesideHonestClients(Child &server, const std::string &url,
                              const TestManifest &m, const rc::auth::Key &key) {
  std::atomic<bool> stop{false};
  std::atomic<int> guesses{0}, toldToWait{0}, connected{0};
  std::thread guesser([&] {
    for (int i = 0; !stop; ++i) {
      std::string err;
      const std::string id = i % 2 ? key.id : "intruder";
      if (connectWithKey(url, {id, Bytes(32, 0x33)}, 5000, &err))
        ++connected;
      if (err.find("authentication failed") == std::string::npos)
        continue;
      ++guesses;
      if (err.find("retry in") != std::string::npos)
        ++toldToWait;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int in = 0;
  for (int i = 0; i < 8; ++i) {
    server.waitFor("\x01", 1); // keep its log flowing
    HandClient honest;
    Bytes reply = honest.handshake(url, m.hash, key);
    in += asHelloReply(reply) && asHelloReply(reply)->ok();
    EXPECT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok())
        << refusal(reply);
  }
  stop = true;
  guesser.join();
  std::printf("[ guessing ] %s: %d of 8 honest clients in beside %d wrong "
              "answers (%d told to retry)\n",
              url.substr(0, 3).c_str(), in, guesses.load(), toldToWait.load());
  EXPECT_EQ(in, 8);
  EXPECT_EQ(connected.load(), 0) << "a guesser got a connection";
  EXPECT_GT(guesses.load(), 1);
  EXPECT_GT(toldToWait.load(), 0);
}

TEST_F(AuthServerTest, AGuesserNeverLocksOutHonestClientsOverTcp) {
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server(serve(url, {"--auth-key-file", keyFile}));
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  guessBesideHonestClients(server, url, m, key);
}

TEST_F(AuthServerTest, AGuesserNeverLocksOutHonestClientsOverShm) {
  std::string url = "shm://rc_auth_guess_" + std::to_string(getpid());
  Child server(serve(url, {"--auth-key-file", keyFile}));
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  guessBesideHonestClients(server, url, m, key);
}
#endif

} // namespace
