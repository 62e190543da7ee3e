// The rc-server executable: argument errors exit 2 with a message, --help
// works, and a test-device server started on a free tcp port serves a
// client and shuts down cleanly on SIGTERM.
#include "isolated_client.h"
#include "key_dir.h"
#include "process_util.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace rc::server::test;

namespace {

// A client of the server at `url` past its Hello for manifest `m`.
std::unique_ptr<rc::transport::Connection> helloClient(const std::string &url,
                                                       const TestManifest &m) {
  std::string err;
  auto c = rc::transport::connect(url, 5000, &err);
  EXPECT_NE(c, nullptr) << err;
  if (!c)
    return nullptr;
  Bytes reply = roundTrip(*c, hello({m.hash}), 5000);
  EXPECT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok());
  return c;
}

TEST(Cli, HelpExitsZero) {
  Child c({"--help"});
  EXPECT_EQ(c.wait(), 0);
  EXPECT_NE(c.text.find("usage: rc-server --listen URL"), std::string::npos);
  EXPECT_NE(c.text.find("--test-device"), std::string::npos);
}

TEST(Cli, BadArgumentsExitTwoWithAMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{}, "--listen URL is required"},
      {{"--listen", "udp://x", "--manifest", "a"}, "must start with tcp://"},
      {{"--bogus"}, "unknown argument '--bogus'"},
      {{"--log-level", "loud"}, "--log-level must be"},
      {{"--device", "x1"}, "--device needs device ordinals"},
      {{"--devices", "0,0"}, "--devices needs device ordinals"},
      {{"--devices", "1,"}, "--devices needs device ordinals"},
      {{"--test-devices", "0"}, "--test-devices needs a count"},
      {{"--listen"}, "--listen needs a URL"},
      {{"--metrics"}, "--metrics needs a file name"},
      {{"--isolation", "thread"}, "--isolation must be none or process"},
      {{"--isolation", "process", "--warm-workers", "x"},
       "--warm-workers needs a count"},
      {{"--isolation", "process", "--max-workers", "0"},
       "--max-workers needs a count"},
      {{"--listen", "tcp://127.0.0.1:1", "--warm-workers", "2"},
       "--warm-workers and --max-workers need --isolation process"},
      {{"--listen", "tcp://127.0.0.1:1", "--isolation", "process",
        "--warm-workers", "5", "--max-workers", "4"},
       "--warm-workers must not exceed --max-workers"},
  };
  for (const Case &k : cases) {
    Child c(k.args);
    EXPECT_EQ(c.wait(), 2) << c.text;
    EXPECT_NE(c.text.find(k.message), std::string::npos) << c.text;
  }
}

// rc-server reads every RC_* variable once, at start, by one rule
// (rc/env_reader.h): a bad value stops the start, naming the variable,
// its own and the transport's alike.
TEST(Cli, BadVariablesStopTheStartNamingThem) {
  struct Case {
    const char *name, *value, *message;
  } cases[] = {
      {"RC_DEV_SERVER_PACK_UPLOADS", "no",
       "RC_DEV_SERVER_PACK_UPLOADS=no is not 0"},
      {"RC_SERVER_UPLOAD_RING_MIB", "32M",
       "RC_SERVER_UPLOAD_RING_MIB=32M is not a whole number"},
      {"RC_SERVER_MAX_REPLY_MIB", "4096", "RC_SERVER_MAX_REPLY_MIB=4096"},
      {"RC_DEV_TRANSPORT_YIELD_US", "-5", "RC_DEV_TRANSPORT_YIELD_US=-5"},
  };
  for (const Case &k : cases) {
    setenv(k.name, k.value, 1);
    Child c({"--listen", "tcp://127.0.0.1:1", "--manifest", "/nonexistent.rcm",
             "--test-device"});
    unsetenv(k.name);
    EXPECT_EQ(c.wait(), 2) << c.text;
    EXPECT_NE(c.text.find(k.message), std::string::npos) << c.text;
  }
}

TEST(Cli, MissingManifestFailsStartNamingIt) {
  Child c({"--listen", "tcp://127.0.0.1:1", "--manifest", "/nonexistent.rcm",
           "--test-device"});
  EXPECT_EQ(c.wait(), 1);
  EXPECT_NE(c.text.find("/nonexistent.rcm"), std::string::npos) << c.text;
}

#ifdef RC_TEST_HAVE_TRANSPORT
// rc-server raises its open-file limit to the hard one at start: a tcp
// session holds 17 sockets, so a soft limit of 256 would end its
// fifteenth. The server is started with that soft limit here.
TEST(Cli, RaisesItsOpenFileLimitToTheHardOne) {
  rlimit mine{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &mine), 0);
  if (mine.rlim_max <= 256)
    GTEST_SKIP() << "the hard open-file limit here is " << mine.rlim_max;
  TestManifest m = writeTestManifest();
  Child server({"--listen", freshUrl("tcp", "nofile"), "--manifest", m.path,
                "--test-device"},
               serverBin(), [] {
                 rlimit low{};
                 getrlimit(RLIMIT_NOFILE, &low);
                 low.rlim_cur = 256;
                 setrlimit(RLIMIT_NOFILE, &low);
               });
  ASSERT_TRUE(server.waitFor("listening on", 20000)) << server.text;
  std::ifstream limits("/proc/" + std::to_string(server.pid) + "/limits");
  std::string line;
  unsigned long long soft = 0, hard = 0;
  while (std::getline(limits, line))
    if (line.rfind("Max open files", 0) == 0)
      std::istringstream(line.substr(14)) >> soft >> hard;
  EXPECT_EQ(hard, mine.rlim_max);
  EXPECT_EQ(soft, hard) << "rc-server kept a soft limit of " << soft;
}

TEST(Cli, ServesAClientAndStopsOnSigterm) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device"});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  EXPECT_NE(server.text.find("1 manifests, 1 modules, 2 kernels, 1 variables "
                             "resolved in"),
            std::string::npos)
      << server.text;
  {
    auto c = helloClient(url, m);
    ASSERT_NE(c, nullptr);
    Bytes b = batch(1, {cMalloc(64), cGoodbye()}, false);
    ASSERT_EQ(c->send(b.data(), b.size()), rc::transport::Status::Ok);
    EXPECT_TRUE(server.waitFor("closed: 1 batches, 2 commands", 10000))
        << server.text;
  }
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  EXPECT_NE(server.text.find("shutting down"), std::string::npos)
      << server.text;
}

// A program that launches no kernels of its own (cuBLAS or driver API only,
// like cuda-samples' deviceQuery or simpleCUBLAS) has no manifest: a server
// without any serves it.
TEST(Cli, ServesProgramsWithoutKernelsWithNoManifest) {
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--test-device"});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  EXPECT_NE(server.text.find("0 manifests, 0 modules, 0 kernels"),
            std::string::npos)
      << server.text;
  std::string err;
  auto c = rc::transport::connect(url, 5000, &err);
  ASSERT_NE(c, nullptr) << err;
  Bytes reply = roundTrip(*c, hello({}), 5000);
  ASSERT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok());
  Bytes b = batch(1, {cMalloc(64), cGoodbye()}, false);
  ASSERT_EQ(c->send(b.data(), b.size()), rc::transport::Status::Ok);
  EXPECT_TRUE(server.waitFor("closed: 1 batches, 2 commands", 10000))
      << server.text;
  kill(server.pid, SIGINT);
  EXPECT_EQ(server.wait(), 0) << server.text;
}

// SIGTERM drains: the listener closes (a new client is refused), the live
// session goes on and its goodbye ends the server; with RC_SERVER_DRAIN_MS
// a session that stays is cut at that time.
TEST(Cli, SigtermLetsLiveSessionsFinish) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device"});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  auto c = helloClient(url, m);
  ASSERT_NE(c, nullptr);
  kill(server.pid, SIGTERM);
  ASSERT_TRUE(server.waitFor("draining: 1 live sessions", 10000))
      << server.text;
  std::string err;
  EXPECT_FALSE(rc::transport::connect(url, 300, &err)) << "no new sessions";
  Bytes reply = roundTrip(*c, batch(1, {cMalloc(64)}), 5000);
  const rc::wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && resultAt(br, 0)) << "the live session is served";
  EXPECT_NE(resultAt(br, 0)->addr(), 0u);
  Bytes bye = batch(2, {cGoodbye()}, false);
  ASSERT_EQ(c->send(bye.data(), bye.size()), rc::transport::Status::Ok);
  EXPECT_EQ(server.wait(), 0) << server.text;
  EXPECT_NE(server.text.find("shutting down: 0 live sessions"),
            std::string::npos)
      << server.text;
}

TEST(Cli, SigtermDrainEndsAtItsLimit) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device"},
               serverBin(), [] { setenv("RC_SERVER_DRAIN_MS", "300", 1); });
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  auto c = helloClient(url, m);
  ASSERT_NE(c, nullptr);
  auto start = std::chrono::steady_clock::now();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - start)
                .count();
  EXPECT_GE(ms, 250) << server.text;
  EXPECT_LT(ms, 5000) << server.text;
  EXPECT_NE(server.text.find("within 300 ms"), std::string::npos)
      << server.text;
  EXPECT_NE(server.text.find("shutting down: 1 live sessions"),
            std::string::npos)
      << server.text;
}

// A quotas file naming a tenant that is no key id stops the start, with
// and without isolation, naming the file and the line.
TEST(Cli, BadQuotasFileStopsTheStartNamingTheLine) {
  rc::test::KeyDir keys;
  std::string key = keys.newKey("server.key", "team-a");
  std::string quotas =
      keys.write("quotas", "team-a sessions=1\nteam-b sessions=2\n", 0600);
  for (const char *isolation : {"none", "process"}) {
    std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
    Child server({"--listen", url, "--test-device", "--auth-key-file", key,
                  "--quotas", quotas, "--isolation", isolation});
    EXPECT_EQ(server.wait(), 1) << server.text;
    EXPECT_NE(server.text.find(quotas + " line 2: 'team-b' is not the id of "
                                        "a key"),
              std::string::npos)
        << server.text;
  }
}

// --isolation process: a worker's start-up error (here a missing
// manifest) is the supervisor's, which does not listen then.
TEST(Cli, IsolatedStartFailsWhenNoWorkerStarts) {
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", "/nonexistent/app.rcm",
                "--test-device", "--isolation", "process"});
  EXPECT_EQ(server.wait(), 1) << server.text;
  EXPECT_NE(server.text.find("/nonexistent/app.rcm"), std::string::npos)
      << server.text;
  EXPECT_NE(server.text.find("the first worker process ended before it was "
                             "ready"),
            std::string::npos)
      << server.text;
  EXPECT_EQ(server.text.find("listening on"), std::string::npos) << server.text;
}

// A worker serves only the Hello with its ticket, once: another ticket is
// refused naming why, and after its session began it listens no more.
TEST(Cli, IsolatedWorkerServesOnlyItsTicketOnce) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  // A ticket lapses after RC_DEV_SERVER_TICKET_MS; this test is not about
  // lapsing, so a loaded machine must not make it lapse first.
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--isolation", "process"},
               serverBin(),
               [] { setenv("RC_DEV_SERVER_TICKET_MS", "10000", 1); });
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  Redirect r = askForWorker(url, {m.hash});
  ASSERT_FALSE(r.url.empty());
  EXPECT_EQ(r.ticket.size(), 16u);
  std::string err;
  Bytes reply = helloWithAnotherTicket(r, {m.hash});
  const rc::wire::HelloReply *hr = asHelloReply(reply);
  ASSERT_TRUE(hr && !hr->ok());
  EXPECT_NE(hr->error()->str().find("reserved for another client"),
            std::string::npos)
      << hr->error()->str();
  auto right = rc::transport::connect(r.url, 5000, &err);
  ASSERT_NE(right, nullptr) << err;
  reply = roundTrip(*right, ticketHello({m.hash}, r.ticket), 5000);
  hr = asHelloReply(reply);
  ASSERT_TRUE(hr && hr->ok()) << (hr && hr->error() ? hr->error()->str() : "");
  // The ticket works once; soon after, the worker stops listening.
  bool listening = true;
  for (int i = 0; i < 20 && listening; ++i) {
    auto again = rc::transport::connect(r.url, 300, &err);
    listening = again != nullptr;
    if (!again)
      break;
    reply = roundTrip(*again, ticketHello({m.hash}, r.ticket), 5000);
    hr = asHelloReply(reply);
    ASSERT_TRUE(hr && !hr->ok());
    EXPECT_NE(hr->error()->str().find("used already"), std::string::npos);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(listening) << "the worker listens no more once its session "
                             "began";
  reply = roundTrip(*right, batch(1, {cMalloc(64)}), 5000);
  const rc::wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && resultAt(br, 0));
  EXPECT_NE(resultAt(br, 0)->addr(), 0u);
}

// The inode of the socket listening on 127.0.0.1:`port` (/proc/net/tcp),
// or "" when there is none.
std::string listeningInode(int port) {
  std::ifstream f("/proc/net/tcp");
  std::string line;
  char local[16];
  std::snprintf(local, sizeof local, "0100007F:%04X", port);
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string slot, addr, remote, state, queues, timer, retr, uid, timeout,
        inode;
    in >> slot >> addr >> remote >> state >> queues >> timer >> retr >> uid >>
        timeout >> inode;
    if (addr == local && state == "0A")
      return inode;
  }
  return "";
}

// A worker started after the supervisor listens has none of its sockets:
// not the listening one (it would keep the address taken after the
// supervisor is gone), nor a client's.
TEST(Cli, IsolatedWorkersHoldNoneOfTheSupervisorsSockets) {
  TestManifest m = writeTestManifest();
  int port = freePort();
  std::string url = "tcp://127.0.0.1:" + std::to_string(port);
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--isolation", "process", "--log-level", "debug"});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  openIsolatedSession(url, {m.hash}).reset(); // a replacement starts
  // Each worker logs event=worker_ready with its pid field.
  auto readyWorkers = [&] {
    std::vector<pid_t> pids;
    std::istringstream lines(server.text);
    for (std::string line; std::getline(lines, line);) {
      size_t pid = line.find(" pid=");
      if (line.find("event=worker_ready") != std::string::npos &&
          line.find("msg=\"ready on ") != std::string::npos &&
          pid != std::string::npos)
        pids.push_back(pid_t(std::atol(line.c_str() + pid + 5)));
    }
    return pids;
  };
  for (int i = 0; i < 100 && readyWorkers().size() < 2; ++i)
    server.waitFor("\x01", 100);
  std::vector<pid_t> workers = readyWorkers();
  ASSERT_EQ(workers.size(), 2u) << server.text;
  std::string inode = listeningInode(port);
  ASSERT_FALSE(inode.empty());
  const std::string socket = "socket:[" + inode + "]";
  std::string fdDir = "/proc/" + std::to_string(workers[1]) + "/fd";
  DIR *dir = opendir(fdDir.c_str());
  ASSERT_NE(dir, nullptr) << fdDir;
  while (dirent *e = readdir(dir)) {
    char target[256] = {};
    std::string link = fdDir + "/" + e->d_name;
    if (readlink(link.c_str(), target, sizeof target - 1) > 0)
      EXPECT_NE(socket, target) << "the worker holds the listening socket";
  }
  closedir(dir);
}

// SIGTERM: the supervisor stops taking clients; a worker's live session
// goes on until its client leaves; then all exit 0.
TEST(Cli, IsolatedSigtermLetsLiveSessionsFinish) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--isolation", "process", "--warm-workers", "2"});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  auto c = openIsolatedSession(url, {m.hash});
  ASSERT_NE(c, nullptr);
  kill(server.pid, SIGTERM);
  ASSERT_TRUE(server.waitFor("draining", 10000)) << server.text;
  std::string err;
  EXPECT_FALSE(rc::transport::connect(url, 300, &err)) << "no new sessions";
  Bytes reply = roundTrip(*c, batch(1, {cMalloc(64)}), 5000);
  const rc::wire::BatchReply *br = asBatchReply(reply);
  ASSERT_TRUE(br && resultAt(br, 0)) << "the live session is served";
  Bytes bye = batch(2, {cGoodbye()}, false);
  ASSERT_EQ(c->send(bye.data(), bye.size()), rc::transport::Status::Ok);
  EXPECT_EQ(server.wait(), 0) << server.text;
  EXPECT_NE(server.text.find("(goodbye)"), std::string::npos) << server.text;
  EXPECT_NE(server.text.find("shutting down: 0 worker processes"),
            std::string::npos)
      << server.text;
}

std::string fileText(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// --metrics reaches the server: the file exists once it listens and lists
// a tcp client's session with its commands after the client left.
TEST(Cli, MetricsFileListsAClientsSession) {
  TestManifest m = writeTestManifest();
  std::string path = m.path + ".metrics.json";
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--metrics=" + path});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  EXPECT_NE(fileText(path).find("\"live_sessions\":0"), std::string::npos);
  {
    auto c = helloClient(url, m);
    ASSERT_NE(c, nullptr);
    Bytes b = batch(1, {cMalloc(64), cMalloc(64), cGoodbye()}, false);
    ASSERT_EQ(c->send(b.data(), b.size()), rc::transport::Status::Ok);
    EXPECT_TRUE(server.waitFor("closed: 1 batches, 3 commands", 10000))
        << server.text;
  }
  std::string text;
  for (int i = 0; i < 1000; ++i) {
    text = fileText(path);
    if (text.find("\"state\":\"closed\"") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(text.find("\"Malloc\":{\"count\":2,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"Goodbye\":{\"count\":1,"), std::string::npos) << text;
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  std::remove(path.c_str());
}
// --metrics with isolation: the supervisor's file lists each worker's
// session under the number the supervisor gave it, live while it runs and
// closed after; a session whose worker was killed is closed with how.
TEST(Cli, IsolatedMetricsFileListsEachWorkersSession) {
  TestManifest m = writeTestManifest();
  std::string path = m.path + ".isolated-metrics.json";
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--isolation", "process", "--warm-workers", "2", "--log-level",
                "debug", "--metrics=" + path});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  auto waitForFile = [&](const std::string &text) {
    std::string file;
    for (int i = 0; i < 500; ++i) {
      file = fileText(path);
      if (file.find(text) != std::string::npos)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return file;
  };
  std::string err;
  Redirect first = askForWorker(url, {m.hash});
  ASSERT_FALSE(first.url.empty());
  // A connection with a wrong ticket comes first: refused, and not what
  // the file lists for this worker.
  Bytes refusal = helloWithAnotherTicket(first, {m.hash});
  const rc::wire::HelloReply *refused = asHelloReply(refusal);
  ASSERT_TRUE(refused && !refused->ok());
  auto c1 = rc::transport::connect(first.url, 5000, &err);
  ASSERT_NE(c1, nullptr) << err;
  ASSERT_TRUE(
      asHelloReply(roundTrip(*c1, ticketHello({m.hash}, first.ticket), 5000)));
  Bytes b = batch(1, {cMalloc(64), cMalloc(64), cGoodbye()}, false);
  ASSERT_EQ(c1->send(b.data(), b.size()), rc::transport::Status::Ok);
  std::string text = waitForFile("\"state\":\"closed\"");
  EXPECT_NE(text.find("\"close_reason\":\"goodbye\""), std::string::npos)
      << text;
  EXPECT_EQ(text.find("handshake refused"), std::string::npos) << text;
  EXPECT_NE(text.find("\"Malloc\":{\"count\":2,"), std::string::npos) << text;

  auto c2 = openIsolatedSession(url, {m.hash});
  ASSERT_NE(c2, nullptr);
  text = waitForFile("{\"id\":2,\"state\":\"live\"");
  EXPECT_NE(text.find("\"live_sessions\":1,\"closed_sessions\":1"),
            std::string::npos)
      << text;
  // Its worker: the one the supervisor redirected the second client to.
  ASSERT_TRUE(server.waitFor("client 2 (", 5000)) << server.text;
  size_t at =
      server.text.find("goes to worker ", server.text.find("client 2 ("));
  ASSERT_NE(at, std::string::npos) << server.text;
  pid_t worker = pid_t(std::atoll(server.text.c_str() + at + 15));
  ASSERT_GT(worker, 0);
  ASSERT_EQ(kill(worker, SIGKILL), 0);
  text = waitForFile("signal 9");
  EXPECT_NE(text.find("{\"id\":2,\"state\":\"closed\",\"close_reason\":"
                      "\"its worker process ended with signal 9"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"live_sessions\":0,\"closed_sessions\":2"),
            std::string::npos)
      << text;
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  std::remove(path.c_str());
}

#endif

} // namespace
