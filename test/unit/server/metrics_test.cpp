// Per-session metrics: a client's batches on the test device show up in
// ServerCore's board and in the --metrics file with the exact command counts
// by type and the exact bytes each way (no timing is asserted: only that
// time was accounted to the command types that ran).
#include "child_process.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

using rc::test::readFile;

// Polls the file until `pred` holds on its content (the writer runs about
// once a second); returns the last content read.
template <class Pred>
std::string waitForFile(const std::string &path, Pred pred) {
  std::string text;
  for (int i = 0; i < 1000; ++i) {
    text = readFile(path);
    if (pred(text))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return text;
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// The decimal number after `"key":` at or after `from`; -1 if absent.
long long numberAfter(const std::string &text, const std::string &key,
                      size_t from = 0) {
  size_t at = text.find("\"" + key + "\":", from);
  if (at == std::string::npos)
    return -1;
  return std::atoll(text.c_str() + at + key.size() + 3);
}

Bytes helloNamed(uint64_t manifestHash, const char *name) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<uint64_t> hashes{manifestHash};
  auto h = wire::CreateHelloDirect(fbb, 1, &hashes, name, 4242);
  fbb.Finish(wire::CreateMessage(fbb, wire::Body::Hello, h.Union()), "RCW1");
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

class MetricsTest : public ::testing::Test {
protected:
  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    m = writeTestManifest();
    char dir[] = "/tmp/rc_metrics_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path = dir_ + "/metrics.json";
    ServerOptions o;
    o.manifests = {m.path};
    o.testDevice = true;
    o.metricsFile = path;
    std::string err;
    ASSERT_TRUE(core.start(o, &err)) << err;
  }
  void TearDown() override {
    core.stop();
    std::remove(path.c_str());
    rmdir(dir_.c_str());
  }

  // What the client sent and got, to compare with the server's counters.
  struct Traffic {
    uint64_t up = 0, down = 0, replies = 0;
  };
  Bytes exchange(MemClient &c, const Bytes &msg, Traffic &t) {
    Bytes reply = c.roundTrip(msg);
    t.up += msg.size();
    t.down += reply.size();
    ++t.replies;
    return reply;
  }

  TestManifest m;
  std::string dir_, path;
  ServerCore core;
};

TEST_F(MetricsTest, FileListsTheSessionWithCommandsByTypeAndBytes) {
  // Written at start-up, before any client: a reader can tell the server
  // is up.
  std::string text = readFile(path);
  EXPECT_TRUE(has(text, "\"live_sessions\":0,\"closed_sessions\":0")) << text;

  auto ends = memPair();
  core.serve(std::move(ends.second));
  MemClient c{std::move(ends.first)};
  Traffic t;
  Bytes hr = exchange(c, helloNamed(m.hash, "app \"one\"\n"), t);
  ASSERT_TRUE(asHelloReply(hr) && asHelloReply(hr)->ok());
  uint64_t p =
      resultAt(asBatchReply(exchange(c, batch(1, {cMalloc(256)}), t)), 0)
          ->addr();
  ASSERT_NE(p, 0u);
  Bytes data(64, 7);
  // The reply's bytes must outlive every pointer into them.
  Bytes reply =
      exchange(c,
               batch(2, {cH2D(p, data), cLaunch(m.scaleId, scaleArgs(p, 16)),
                         cLaunch(m.scaleId, scaleArgs(p, 16)), cD2H(p, 64),
                         cStreamSync(0)}),
               t);
  const wire::BatchReply *r = asBatchReply(reply);
  ASSERT_TRUE(r && (!r->errors() || r->errors()->size() == 0));

  // Live: listed while the client is still connected.
  text = waitForFile(path, [](const std::string &s) {
    return has(s, "\"state\":\"live\"") && has(s, "\"batches\":2,");
  });
  EXPECT_TRUE(has(text, "\"live_sessions\":1,")) << text;
  EXPECT_TRUE(has(text, "\"batches\":2,")) << text;
  EXPECT_TRUE(has(text, "\"Launch\":{\"count\":2,")) << text;

  // A failing batch counts as failed, and its reply counts too.
  Bytes bad = batch(3, {cFree(12345)});
  reply = exchange(c, bad, t);
  r = asBatchReply(reply);
  ASSERT_TRUE(r && r->errors() && r->errors()->size() == 1);
  Bytes bye = batch(4, {cGoodbye()}, false);
  ASSERT_EQ(c.conn->send(bye.data(), bye.size()), rc::transport::Status::Ok);
  t.up += bye.size();

  text = waitForFile(path, [](const std::string &s) {
    return has(s, "\"state\":\"closed\"");
  });
  ASSERT_TRUE(has(text, "\"state\":\"closed\"")) << text;
  EXPECT_TRUE(has(text, "\"live_sessions\":0,\"closed_sessions\":1")) << text;
  EXPECT_TRUE(has(text, "\"client\":\"app \\\"one\\\"\\u000a\"")) << text;
  EXPECT_TRUE(has(text, "\"pid\":4242,")) << text;
  EXPECT_TRUE(has(text, "\"close_reason\":\"goodbye\"")) << text;
  EXPECT_EQ(numberAfter(text, "batches"), 4) << text;
  EXPECT_EQ(numberAfter(text, "failed_batches"), 1) << text;
  EXPECT_EQ(numberAfter(text, "commands"), 8) << text;
  EXPECT_EQ(numberAfter(text, "bytes_in"), (long long)t.up) << text;
  EXPECT_EQ(numberAfter(text, "bytes_out"), (long long)t.down) << text;
  EXPECT_EQ(numberAfter(text, "replies"), (long long)t.replies) << text;
  for (const char *type : {"Malloc", "MemcpyH2D", "MemcpyD2H",
                           "StreamSynchronize", "Free", "Goodbye"}) {
    size_t at = text.find(std::string("\"") + type + "\":{");
    ASSERT_NE(at, std::string::npos) << type << " missing: " << text;
    EXPECT_EQ(numberAfter(text, "count", at), 1) << type << ": " << text;
  }
  size_t launch = text.find("\"Launch\":{");
  EXPECT_EQ(numberAfter(text, "count", launch), 2) << text;
  EXPECT_FALSE(has(text, "\"Memset\"")) << "types not used are left out";
  // Time was accounted (a clock always moves across two launches), and
  // the per-type times fit inside the batches' replay time.
  long long launchNs = numberAfter(text, "ns", launch);
  EXPECT_GT(launchNs, 0) << text;
  // The slower of the two launches is at least half their time, and no
  // more than all of it.
  long long launchMaxNs = numberAfter(text, "max_ns", launch);
  EXPECT_GE(2 * launchMaxNs, launchNs) << text;
  EXPECT_LE(launchMaxNs, launchNs) << text;
  EXPECT_GE(numberAfter(text, "replay_ns"), launchNs) << text;
  EXPECT_GT(numberAfter(text, "reply_ns"), 0) << text;
  // One stream only: nothing was ordered behind a sync on another.
  EXPECT_EQ(numberAfter(text, "sync_fences"), 0) << text;
  // Three batches were waited for (the goodbye was not): their round trips
  // are summarized; only the second read back, so the 90th percentile of
  // read-back time is positive while the median is zero; the client had
  // time between two of them (the first has no earlier reply).
  size_t recent = text.find("\"recent_round_trips\":{");
  ASSERT_NE(recent, std::string::npos) << text;
  EXPECT_EQ(numberAfter(text, "count", recent), 3) << text;
  size_t median = text.find("\"median\":{", recent);
  size_t p90 = text.find("\"p90\":{", recent);
  ASSERT_NE(median, std::string::npos) << text;
  ASSERT_NE(p90, std::string::npos) << text;
  EXPECT_EQ(numberAfter(text, "readback_ns", median), 0) << text;
  EXPECT_GT(numberAfter(text, "readback_ns", p90), 0) << text;
  // The same holds for the second batch's upload, launches and its sync
  // (deferred to the end of the batch, then waited for).
  for (const char *part : {"upload_ns", "launch_ns", "sync_ns"}) {
    EXPECT_EQ(numberAfter(text, part, median), 0) << part << ": " << text;
    EXPECT_GT(numberAfter(text, part, p90), 0) << part << ": " << text;
  }
  EXPECT_GT(numberAfter(text, "gap_ns", median), 0) << text;
  EXPECT_GT(numberAfter(text, "replay_ns", median), 0) << text;

  // The in-process board holds the same counters as the file.
  EXPECT_EQ(numberAfter(core.metrics().json(), "bytes_in"), (long long)t.up);
}

TEST_F(MetricsTest, ClosedSessionsStayListedAfterDisconnect) {
  for (int i = 0; i < 2; ++i) {
    auto ends = memPair();
    core.serve(std::move(ends.second));
    MemClient c{std::move(ends.first)};
    ASSERT_TRUE(asHelloReply(c.roundTrip(hello({m.hash})))->ok());
    c.roundTrip(batch(1, {cMalloc(64)}));
    c.conn->close(); // no Goodbye: the transport reports the client gone
  }
  std::string text = waitForFile(path, [](const std::string &s) {
    return has(s, "\"closed_sessions\":2");
  });
  EXPECT_TRUE(has(text, "\"live_sessions\":0,\"closed_sessions\":2")) << text;
  EXPECT_TRUE(has(text, "\"close_reason\":\"client disconnected: ")) << text;
  EXPECT_TRUE(has(text, "\"client\":\"server-test\"")) << text;
  size_t second = text.find("\"id\":", text.find("\"id\":") + 1);
  EXPECT_NE(second, std::string::npos) << "both sessions listed: " << text;
}

// ---- the file is the operator's alone, and only ever a regular file ------
// (docs/security.md, "Tenants see only their own")

class MetricsFileSafety : public ::testing::Test {
protected:
  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    m = writeTestManifest();
    char tmpl[] = "/tmp/rc_metrics_safety_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    victim = dir + "/victim";
    std::ofstream(victim) << "precious";
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  // ServerCore::start with --metrics `path`: its error ("" if it started).
  std::string startWith(const std::string &path) {
    ServerCore core;
    ServerOptions o;
    o.manifests = {m.path};
    o.testDevice = true;
    o.metricsFile = path;
    std::string err;
    if (core.start(o, &err))
      core.stop();
    return err;
  }
  mode_t modeOf(const std::string &path) {
    struct stat st{};
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    return st.st_mode;
  }
  TestManifest m;
  std::string dir, victim;
};

TEST_F(MetricsFileSafety, WrittenOwnerOnlyWhateverTheUmask) {
  mode_t old = umask(0);
  std::string err = startWith(dir + "/metrics.json");
  umask(old);
  EXPECT_EQ(err, "");
  EXPECT_EQ(modeOf(dir + "/metrics.json") & 07777, 0600u);
  EXPECT_TRUE(has(readFile(dir + "/metrics.json"), "\"live_sessions\""));
  // Nothing else is left in the directory (no temporary file).
  size_t entries = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    entries += e.path().filename() != "victim";
  EXPECT_EQ(entries, 1u);
}

TEST_F(MetricsFileSafety, ASymbolicLinkAtThePathIsRefusedNotFollowed) {
  std::string link = dir + "/metrics.json";
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  std::string err = startWith(link);
  EXPECT_TRUE(has(err, "metrics file " + link)) << err;
  EXPECT_TRUE(has(err, "symbolic link")) << err;
  EXPECT_TRUE(S_ISLNK(modeOf(link))) << "the link was replaced";
  EXPECT_EQ(readFile(victim), "precious");
}

// The temporary file's name is not guessable, and it is never opened
// through anything planted: a link where an earlier rc-server put its
// temporary file (FILE.tmp.PID) leads nowhere.
TEST_F(MetricsFileSafety, APlantedLinkInTheDirectoryIsNeverWrittenThrough) {
  std::string path = dir + "/metrics.json";
  std::string planted = path + ".tmp." + std::to_string(getpid());
  ASSERT_EQ(symlink(victim.c_str(), planted.c_str()), 0);
  EXPECT_EQ(startWith(path), "");
  EXPECT_EQ(readFile(victim), "precious");
  EXPECT_TRUE(S_ISREG(modeOf(path)));
}

// A device node (as root: one made here, like /dev/full; else a named
// pipe stands in) is never replaced by a file.
TEST_F(MetricsFileSafety, ADeviceNodeOrPipeIsNeverReplaced) {
  std::string fifo = dir + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string err = startWith(fifo);
  EXPECT_TRUE(has(err, "not a regular file")) << err;
  EXPECT_TRUE(S_ISFIFO(modeOf(fifo)));
  if (geteuid() != 0)
    GTEST_SKIP() << "only root makes a device node (the pipe case passed)";
  std::string device = dir + "/full";
  ASSERT_EQ(mknod(device.c_str(), S_IFCHR | 0600, makedev(1, 7)), 0);
  err = startWith(device);
  EXPECT_TRUE(has(err, "device node")) << err;
  EXPECT_TRUE(S_ISCHR(modeOf(device))) << "the device node was replaced";
}

TEST(MetricsStart, UnwritableFileFailsStartUpNamingIt) {
  setLogLevel(LogLevel::Quiet);
  TestManifest m = writeTestManifest();
  ServerCore core;
  ServerOptions o;
  o.manifests = {m.path};
  o.testDevice = true;
  o.metricsFile = "/nonexistent-dir/metrics.json";
  std::string err;
  EXPECT_FALSE(core.start(o, &err));
  EXPECT_TRUE(has(err, "metrics file /nonexistent-dir/metrics.json")) << err;
}

} // namespace
