// rc-server --config FILE and SIGHUP (docs/metrics.md, "Configuration and
// reload"): the file stands for the options and flags override it; a
// reload over tcp and over shm refuses a removed key's new connections,
// keeps or ends its live sessions as --on-key-removed says, applies
// changed quotas to the next allocations of live sessions, and a wrong
// file changes nothing.
#include "config_file.h"
#include "hand_client.h"
#include "key_dir.h"
#include "process_util.h"
#include "random_keys.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

using namespace rc::server;
using namespace rc::server::test;
using rc::test::KeyDir;

namespace {

TEST(ConfigFile, KeysBecomeTheOptionsTheyName) {
  KeyDir dir;
  std::string file =
      dir.write("rc.toml",
                "listen = \"tcp://127.0.0.1:7070\"\n"
                "manifests = [\"a.rcm\", \"b.rcm\"]\n"
                "test_device = true\ninsecure = false\ntest_devices = 2\n"
                "on_key_removed = \"end\"\n",
                0600);
  std::vector<std::string> options;
  std::string error;
  ASSERT_TRUE(configFileOptions(file, &options, &error)) << error;
  auto has = [&](const std::string &o) {
    return std::find(options.begin(), options.end(), o) != options.end();
  };
  EXPECT_TRUE(has("--listen=tcp://127.0.0.1:7070"));
  EXPECT_TRUE(has("--manifest=a.rcm"));
  EXPECT_TRUE(has("--manifest=b.rcm"));
  EXPECT_TRUE(has("--test-device"));
  EXPECT_FALSE(has("--insecure"));
  EXPECT_TRUE(has("--test-devices=2"));
  EXPECT_TRUE(has("--on-key-removed=end"));
}

TEST(ConfigFile, MistakesNameTheFileTheLineAndTheKey) {
  KeyDir dir;
  struct Case {
    std::string text, message;
  } cases[] = {
      {"listen = \"x\"\nlisen = \"y\"\n", "line 2: unknown key 'lisen'"},
      {"test_device = \"yes\"\n", "test_device must be true or false"},
      {"manifests = \"a.rcm\"\n", "manifests must be a list of strings"},
      {"warm_workers = \"2\"\n", "warm_workers must be a whole number"},
      {"listen = \n", "line 1"},
  };
  for (const Case &k : cases) {
    std::string file = dir.write("bad.toml", k.text, 0600), error;
    std::vector<std::string> options;
    EXPECT_FALSE(configFileOptions(file, &options, &error)) << k.text;
    EXPECT_NE(error.find(file), std::string::npos) << error;
    EXPECT_NE(error.find(k.message), std::string::npos) << error;
  }
}

TEST(ConfigFile, AFlagOverridesTheFile) {
  KeyDir dir;
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  // The file's metrics address would be refused (off loopback, no token).
  std::string file =
      dir.write("rc.toml",
                "listen = \"" + url + "\"\nmanifests = [\"" + m.path +
                    "\"]\ntest_device = true\nmetrics_listen = \"0.0.0.0:0\"\n",
                0600);
  Child refused({"--config", file});
  EXPECT_EQ(refused.wait(), 2) << refused.text;
  EXPECT_NE(refused.text.find("--metrics-token-file"), std::string::npos);
  Child server({"--config", file, "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  EXPECT_NE(server.text.find("GET http://127.0.0.1:"), std::string::npos);
  Child bad({"--config", dir.write("x.toml", "colour = 1\n", 0600)});
  EXPECT_EQ(bad.wait(), 2);
  EXPECT_NE(bad.text.find("unknown key 'colour'"), std::string::npos);
}

// A tcp or shm server with tenants team-a and team-b; SIGHUP reloads.
class ReloadTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    m = writeTestManifest();
    a = randomKey("team-a");
    b = randomKey("team-b");
    keyFile = dir.write("keys", keyLine(a) + keyLine(b), 0600);
    quotasFile = dir.write("quotas", "team-a device=1MiB\n", 0600);
    url = freshUrl(GetParam(), "rc_reload");
  }
  void serve(const std::string &onKeyRemoved) {
    server = std::make_unique<Child>(std::vector<std::string>{
        "--listen", url, "--manifest", m.path, "--test-device",
        "--auth-key-file", keyFile, "--quotas", quotasFile, "--on-key-removed",
        onKeyRemoved});
    ASSERT_TRUE(server->waitFor("listening on", 10000)) << server->text;
  }
  // A session of `key` past its handshake (false when refused).
  bool open(const rc::auth::Key &key, HandClient *c, std::string *why) {
    std::string error;
    Bytes reply = c->handshake(url, m.hash, key, {}, &error);
    *why = error.empty() ? refusalOf(reply) : error;
    return opened(reply);
  }
  // Allocates `bytes` in c's session: true when it succeeded.
  bool allocate(HandClient &c, uint64_t seq, uint64_t bytes) {
    Bytes reply = roundTrip(*c.conn, batch(seq, {cMalloc(bytes)}), 5000);
    const wire::BatchReply *br = asBatchReply(reply);
    return br && br->errors()->size() == 0;
  }
  // Sends SIGHUP; waits for the server's word on it.
  void reload(const char *expect) {
    size_t before = server->text.size();
    kill(server->pid, SIGHUP);
    ASSERT_TRUE(server->waitFor(expect, 10000)) << server->text;
    EXPECT_NE(server->text.find(expect, before), std::string::npos)
        << server->text;
  }
  KeyDir dir;
  TestManifest m;
  rc::auth::Key a, b;
  std::string keyFile, quotasFile, url;
  std::unique_ptr<Child> server;
};

TEST_P(ReloadTest, ARemovedKeysSessionsEndAndItsNewOnesAreRefused) {
  serve("end");
  HandClient ca, cb;
  std::string why;
  ASSERT_TRUE(open(a, &ca, &why)) << why;
  ASSERT_TRUE(open(b, &cb, &why)) << why;
  const uint64_t mib = 1 << 20;
  EXPECT_FALSE(allocate(ca, 1, 2 * mib)); // past team-a's 1 MiB
  // team-b goes; team-a's quota grows.
  dir.write("keys", keyLine(a), 0600);
  dir.write("quotas", "team-a device=8MiB\n", 0600);
  reload("event=reloaded");
  EXPECT_NE(server->text.find("removed: team-b"), std::string::npos)
      << server->text;
  // The live session of team-a allocates under its new quota.
  EXPECT_TRUE(allocate(ca, 2, 2 * mib));
  // team-b's live session ends, saying why.
  ASSERT_TRUE(server->waitFor("its key 'team-b' was removed", 10000))
      << server->text;
  Bytes reply;
  EXPECT_NE(cb.conn->recv(reply, 5000), rc::transport::Status::Ok);
  // And it cannot come back.
  HandClient again;
  EXPECT_FALSE(open(b, &again, &why)) << why;
}

TEST_P(ReloadTest, WithKeepARemovedKeysLiveSessionRuns) {
  serve("keep");
  HandClient cb;
  std::string why;
  ASSERT_TRUE(open(b, &cb, &why)) << why;
  dir.write("keys", keyLine(a), 0600);
  reload("event=reloaded");
  EXPECT_TRUE(allocate(cb, 1, 4096));
  HandClient again;
  EXPECT_FALSE(open(b, &again, &why));
  HandClient ca;
  EXPECT_TRUE(open(a, &ca, &why)) << why;
}

TEST_P(ReloadTest, AWrongFileChangesNothing) {
  serve("end");
  // team-c is no key of the key file: the quotas file is refused, and so
  // is the whole reload, keys included.
  dir.write("keys", keyLine(a), 0600);
  dir.write("quotas", "team-c device=1MiB\n", 0600);
  reload("event=reload_failed");
  EXPECT_NE(server->text.find("team-c"), std::string::npos) << server->text;
  HandClient cb;
  std::string why;
  EXPECT_TRUE(open(b, &cb, &why)) << why;
  EXPECT_TRUE(allocate(cb, 1, 4096));
}

INSTANTIATE_TEST_SUITE_P(Transports, ReloadTest,
                         ::testing::Values("tcp", "shm"));

} // namespace
