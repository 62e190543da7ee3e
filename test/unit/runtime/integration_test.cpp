// End to end on one machine: a real rc-server (--test-device) over shm and
// tcp, and plain C++ programs linked to librc_cudart.so. Every wait is
// bounded; the server is killed by pid when a test ends.
#include "child_process.h"
#include "key_dir.h"
#include "program_manifest.h"
#include "programs/test_module.h"
#include "rc/content_hash.h"
#include "rc/fatbin.h"
#include "rc/manifest_file.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

// This build's rc-server (CMake passes its path, and builds it before this
// suite). Missing, the calling test fails: a suite that skipped, or that
// took another build folder's binary, could pass against a stale server.
std::string inTreeServer() {
  struct stat st;
  if (::stat(RC_SERVER_BIN, &st) != 0) {
    ADD_FAILURE() << "this build's rc-server is missing: " RC_SERVER_BIN
                     " (ninja rc-server)";
    return "";
  }
  return RC_SERVER_BIN;
}

std::string tempDir() {
  char tmpl[] = "/tmp/rc-rt-itest-XXXXXX";
  return mkdtemp(tmpl) ? tmpl : "/tmp";
}

// A fresh directory for one test, removed when the test passed (kept for
// inspection when it failed).
struct TestDir {
  const std::string path = tempDir();
  ~TestDir() {
    if (!testing::Test::HasFailure())
      std::filesystem::remove_all(path);
  }
};

// shm://rc-rt-<tag>-<pid>: a name no other test process uses.
std::string shmUrl(const std::string &tag) {
  return "shm://rc-rt-" + tag + "-" + std::to_string(getpid());
}

// The manifest the programs' registered module and kernel IDs refer to.
std::string writeManifest(const std::string &dir,
                          const std::string &name = "roundtrip.rcm",
                          const uint8_t *fb = rc::test::kTestFatbin) {
  return rc::test::writeProgramManifest(dir, name, fb);
}

// tcp://127.0.0.1:<a port nobody listens on now>.
std::string loopbackTcpUrl() {
  int port = rc::test::freeLoopbackPort();
  EXPECT_GT(port, 0) << "no free tcp port";
  return "tcp://127.0.0.1:" + std::to_string(port);
}

using rc::test::ChildResult;
using rc::test::readFile;
using rc::test::runChild;
using rc::test::startChild;

class Server {
public:
  Server(const std::string &bin, const std::string &url,
         const std::string &manifest, const std::string &log,
         const std::vector<std::string> &extraArgs = {},
         const std::vector<std::string> &env = {})
      : log_(log) {
    std::vector<std::string> args{bin, "--test-device", "--listen",
                                  url, "--manifest",    manifest};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    pid_ = startChild(args, env, log);
  }
  // Bounded wait for the "listening on" log line.
  bool waitReady(int timeoutMs) {
    auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (std::chrono::steady_clock::now() < deadline) {
      if (readFile(log_).find("listening on") != std::string::npos)
        return true;
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  std::string log() const { return readFile(log_); }
  ~Server() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      for (int i = 0; i < 200; ++i) {
        if (waitpid(pid_, nullptr, WNOHANG) == pid_)
          return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

private:
  pid_t pid_ = -1;
  std::string log_;
};

// A test-device rc-server serving the programs' manifest, in a fresh
// TestDir, with `args` added to its command line. After start(), running()
// is false when the test failed (no rc-server built, or it did not start).
class ServedPrograms {
public:
  // `env`: NAME=VALUE for rc-server.
  void start(const std::string &url, const std::vector<std::string> &args = {},
             const std::vector<std::string> &env = {}) {
    std::string server = inTreeServer();
    if (server.empty())
      return;
    url_ = url;
    manifest_ = writeManifest(dir());
    srv_ = std::make_unique<Server>(server, url, manifest_,
                                    dir() + "/server.log", args, env);
    ASSERT_TRUE(srv_->waitReady(10000)) << "rc-server did not start:\n"
                                        << srv_->log();
    running_ = true;
  }
  bool running() const { return running_; }
  const std::string &dir() const { return dir_.path; }
  const std::string &manifest() const { return manifest_; }
  // What a program needs to reach it.
  std::vector<std::string> env() const {
    return {"RC_SERVER=" + url_, "RC_MANIFEST=" + manifest_};
  }
  std::string log() const { return srv_ ? srv_->log() : ""; }

private:
  TestDir dir_;
  std::string url_, manifest_;
  std::unique_ptr<Server> srv_;
  bool running_ = false;
};

// Starts a test-device server on `url` and runs `prog` against it.
void runProgram(const std::string &url, const char *prog,
                const std::vector<std::string> &expect,
                const std::vector<std::string> &serverArgs = {}) {
  ServedPrograms served;
  served.start(url, serverArgs);
  if (!served.running())
    return;
  ChildResult r =
      runChild({prog}, served.env(), served.dir() + "/prog.out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << served.log();
  for (const std::string &e : expect)
    EXPECT_NE(r.output.find(e), std::string::npos)
        << "missing '" << e << "' in:\n"
        << r.output;
}

} // namespace

TEST(RuntimeIntegration, RoundTripOverShm) {
  runProgram(shmUrl("roundtrip"), RC_ROUNDTRIP_PROG, {"PASS"});
}

TEST(RuntimeIntegration, AsyncErrorReportedAtNextSyncOverShm) {
  runProgram(shmUrl("err"), RC_ASYNC_ERROR_PROG,
             {"at call: cudaSuccess", "after: cudaSuccess",
              "pointer 0x10 is not inside any allocation"});
}

// Function attributes, occupancy, cooperative / PDL launches, 2D and peer
// copies, host functions and ggml's VMM pool through librc_cuda.so.
TEST(RuntimeIntegration, DriverSurfaceOverShm) {
  runProgram(shmUrl("drv"), RC_DRIVER_SURFACE_PROG,
             {"PASS", "pci bus id: 0000:00:00.0"});
}

// The runtime's aliases and librc_cuda's served calls, through the shipped
// libraries (programs/served_calls.cpp).
TEST(RuntimeIntegration, ServedCallsOverShm) {
  runProgram(
      shmUrl("served"), RC_SERVED_CALLS_PROG,
      {"cudaThread* aliases: ok", "driver graphs and pools: ok", "PASS"});
}

TEST(RuntimeIntegration, RoundTripOverTcp) {
  runProgram(loopbackTcpUrl(), RC_ROUNDTRIP_PROG, {"PASS"});
}

// rc-server with --auth-key-file: the program with a copy of the key runs,
// without one (or with another key) it fails at its first CUDA call with a
// message naming RC_AUTH_KEY_FILE, and the server keeps serving.
void runWithKeys(const std::string &url,
                 std::vector<std::string> serverArgs = {}) {
  rc::test::KeyDir keys;
  std::string key = keys.newKey("server.key"), other = keys.newKey("other");
  ServedPrograms served;
  serverArgs.insert(serverArgs.end(), {"--auth-key-file", key});
  served.start(url, serverArgs);
  if (!served.running())
    return;
  std::vector<std::string> env = served.env();
  ChildResult none =
      runChild({RC_ROUNDTRIP_PROG}, env, served.dir() + "/none.out", 60);
  EXPECT_NE(none.status, 0) << none.output;
  EXPECT_NE(none.output.find("authentication required"), std::string::npos)
      << none.output;
  EXPECT_NE(none.output.find("RC_AUTH_KEY_FILE"), std::string::npos)
      << none.output;
  env.push_back("RC_AUTH_KEY_FILE=" + other);
  ChildResult wrong =
      runChild({RC_ROUNDTRIP_PROG}, env, served.dir() + "/wrong.out", 60);
  EXPECT_NE(wrong.status, 0) << wrong.output;
  EXPECT_NE(wrong.output.find("authentication failed"), std::string::npos)
      << wrong.output;
  // The failure makes this host wait a moment before its next attempt.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  env.back() = "RC_AUTH_KEY_FILE=" + key;
  ChildResult right =
      runChild({RC_ROUNDTRIP_PROG}, env, served.dir() + "/right.out", 60);
  EXPECT_EQ(right.status, 0) << right.output << "\n--- server log ---\n"
                             << served.log();
  EXPECT_NE(right.output.find("PASS"), std::string::npos) << right.output;
}

TEST(RuntimeIntegration, AuthenticatedRoundTripOverTcp) {
  runWithKeys(loopbackTcpUrl());
}

TEST(RuntimeIntegration, AuthenticatedRoundTripOverShm) {
  runWithKeys(shmUrl("auth"));
}

// Programs with a wrong key of the same key id fail, one after another,
// from this host, while programs with the right key run beside them:
// every one of those gets in (a right proof is never refused for others'
// failures).
void runBesideAGuesser(const std::string &url,
                       std::vector<std::string> serverArgs = {}) {
  rc::test::KeyDir keys;
  std::string key = keys.newKey("server.key"), wrong = keys.newKey("wrong");
  ServedPrograms served;
  serverArgs.insert(serverArgs.end(), {"--auth-key-file", key});
  served.start(url, serverArgs);
  if (!served.running())
    return;
  std::atomic<bool> stop{false};
  std::atomic<int> guesses{0};
  std::thread guesser([&] {
    std::vector<std::string> env = served.env();
    env.push_back("RC_AUTH_KEY_FILE=" + wrong);
    while (!stop) {
      ChildResult r =
          runChild({RC_ROUNDTRIP_PROG}, env, served.dir() + "/guess.out", 60);
      guesses += r.status != 0;
    }
  });
  std::vector<std::string> env = served.env();
  env.push_back("RC_AUTH_KEY_FILE=" + key);
  for (int i = 0; i < 8; ++i) {
    ChildResult r =
        runChild({RC_ROUNDTRIP_PROG}, env, served.dir() + "/honest.out", 60);
    EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                           << served.log();
  }
  stop = true;
  guesser.join();
  EXPECT_GT(guesses.load(), 0);
}

TEST(RuntimeIntegration, AGuesserNeverKeepsOutProgramsOverTcp) {
  runBesideAGuesser(loopbackTcpUrl());
}

TEST(RuntimeIntegration, AGuesserNeverKeepsOutProgramsOverShm) {
  runBesideAGuesser(shmUrl("guess"));
}

// Several clients at once, each copying sizes around the RMA thresholds
// both ways with every byte checked (programs/copy_stress.cpp): uploads
// through the upload ring, read-backs written by RMA, and the inline paths
// beside them, in one server process.
// `seeds`: each client's (clients with one seed upload the same bytes).
void runConcurrentCopyStress(const std::string &url,
                             const std::vector<std::string> &serverArgs = {},
                             const std::vector<int> &seeds = {1, 2, 3, 4}) {
  ServedPrograms served;
  served.start(url, serverArgs);
  if (!served.running())
    return;
  const std::string &dir = served.dir();
  std::vector<std::string> env = served.env();
  env.push_back("RC_DEV_RMA=1");
  env.push_back("RC_CACHE=1"); // over shm too, where it is off by default
  std::vector<std::thread> clients;
  std::vector<ChildResult> results(seeds.size());
  for (size_t i = 0; i < results.size(); ++i)
    clients.emplace_back([&, i] {
      results[i] =
          runChild({RC_COPY_STRESS_PROG, "40", std::to_string(seeds[i])}, env,
                   dir + "/stress" + std::to_string(i) + ".out", 120);
    });
  for (std::thread &t : clients)
    t.join();
  for (const ChildResult &r : results) {
    EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                           << served.log();
    EXPECT_NE(r.output.find("PASS: 40 iterations"), std::string::npos)
        << r.output;
  }
}

TEST(RuntimeIntegration, ConcurrentClientsCopyStressOverShm) {
  runConcurrentCopyStress(shmUrl("stress"));
}

TEST(RuntimeIntegration, ConcurrentClientsCopyStressOverTcp) {
  runConcurrentCopyStress(loopbackTcpUrl());
}

// One program, eight host threads, each copying on its own stream at once
// (test/unit/runtime/programs/thread_streams.cpp): the runtime serves
// several threads of one process without mixing their streams or bytes.
void runThreadStreams(const std::string &url) {
  ServedPrograms served;
  served.start(url, {});
  if (!served.running())
    return;
  ChildResult r = runChild({RC_THREAD_STREAMS_PROG, "8", "20"}, served.env(),
                           served.dir() + "/threads.out", 120);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << served.log();
  EXPECT_NE(r.output.find("PASS: 8 threads x 20 iterations"), std::string::npos)
      << r.output;
}

TEST(RuntimeIntegration, EightThreadsEachOnItsOwnStreamOverShm) {
  runThreadStreams(shmUrl("threads"));
}

TEST(RuntimeIntegration, EightThreadsEachOnItsOwnStreamOverTcp) {
  runThreadStreams(loopbackTcpUrl());
}

// With a content cache of four chunks: clients two by two upload the same
// bytes at once, chunks are inserted, found and evicted under them, and
// every byte read back is still checked.
TEST(RuntimeIntegration, ConcurrentClientsShareTheContentCacheOverShm) {
  runConcurrentCopyStress(shmUrl("stress-cache"), {"--cache", "16MiB"},
                          {1, 1, 2, 2});
}

TEST(RuntimeIntegration, ConcurrentClientsShareTheContentCacheOverTcp) {
  runConcurrentCopyStress(loopbackTcpUrl(), {"--cache", "16MiB"}, {3, 3, 4, 4});
}

// Ctrl-C and SIGTERM end a client at once, whatever it is doing: clients
// stream copies and launches; half get SIGINT, half SIGTERM, and half of
// each kind exit() from their own handler (the runtime's exit path then
// runs while the interrupted thread may hold its lock). Every one must be
// gone within a second of its signal, and the server must go on serving.
// Built with sanitizers (RC_SANITIZE) a process takes longer to go (the
// leak check at exit, the huge shadow mappings to unmap): 3 s there.
#ifdef RC_SANITIZE_BUILD
constexpr std::chrono::milliseconds kSignalExitLimit{3000};
#else
constexpr std::chrono::milliseconds kSignalExitLimit{1000};
#endif
void interruptClientsMidStream(const std::string &url) {
  ServedPrograms served;
  served.start(url);
  if (!served.running())
    return;
  const std::string &dir = served.dir();
  struct Client {
    pid_t pid;
    int signal;
    bool exitHandler;
    std::string out;
  };
  struct Clients : std::vector<Client> {
    ~Clients() { // whatever a failed assertion left running
      for (Client &c : *this)
        if (c.pid > 0) {
          kill(c.pid, SIGKILL);
          waitpid(c.pid, nullptr, 0);
        }
    }
  } clients;
  // One at a time, each until it has finished a round of copies and
  // launches. Handshakes are not what this test is about: one that a busy
  // machine lets time out (the client then exits saying "no GPU server")
  // is tried again.
  for (int i = 0; i < 20; ++i) {
    Client c{0, i % 2 ? SIGTERM : SIGINT, (i / 2) % 2 == 1,
             dir + "/client" + std::to_string(i) + ".out"};
    std::vector<std::string> argv{RC_STREAM_PROG};
    if (c.exitHandler)
      argv.push_back("exit-handler");
    clients.push_back(c);
    Client &added = clients.back();
    for (int attempt = 1;; ++attempt) {
      added.pid = startChild(argv, served.env(), added.out);
      while (readFile(added.out).find("streaming") == std::string::npos &&
             waitpid(added.pid, nullptr, WNOHANG) == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::string out = readFile(added.out);
      if (out.find("streaming") != std::string::npos)
        break;
      added.pid = 0; // exited, and reaped above
      ASSERT_TRUE(attempt < 3 && out.find("no GPU server") != std::string::npos)
          << "client " << i << " did not start streaming (attempt " << attempt
          << "):\n"
          << out << "\n--- server log ---\n"
          << served.log();
    }
  }
  for (Client &c : clients) {
    auto sent = std::chrono::steady_clock::now();
    kill(c.pid, c.signal);
    int status = 0;
    pid_t done;
    while ((done = waitpid(c.pid, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() - sent < kSignalExitLimit)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(done, c.pid) << strsignal(c.signal)
                           << (c.exitHandler ? " (exit() handler)" : "")
                           << ": the client was still running after "
                           << kSignalExitLimit.count() << " ms:\n"
                           << readFile(c.out);
    c.pid = 0;
    if (c.exitHandler)
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3)
          << "status " << status << ":\n"
          << readFile(c.out);
    else
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == c.signal)
          << "status " << status << ":\n"
          << readFile(c.out);
  }
  ChildResult r =
      runChild({RC_ROUNDTRIP_PROG}, served.env(), dir + "/after.out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << served.log();
}

TEST(RuntimeIntegration, SignalsEndClientsPromptlyOverShm) {
  interruptClientsMidStream(shmUrl("sig"));
}

TEST(RuntimeIntegration, SignalsEndClientsPromptlyOverTcp) {
  interruptClientsMidStream(loopbackTcpUrl());
}

// A binary refuses a manifest that is not its own build's: a copy of the
// roundtrip program (it registers the test module) with another build's
// manifest beside it (same kernel IDs, other device code) ignores it,
// naming both files, although the server serves that manifest; the server
// refuses the binary's build too. Beside its own build's manifest it runs.
TEST(RuntimeIntegration, AnotherBuildsManifestBesideTheBinaryIsRefused) {
  std::string server = inTreeServer();
  if (server.empty())
    return;
  TestDir testDir;
  const std::string &dir = testDir.path;
  std::string app = dir + "/app";
  std::filesystem::copy_file(RC_ROUNDTRIP_PROG, app);
  std::string url = shmUrl("build");
  uint8_t otherFatbin[sizeof rc::test::kTestFatbin];
  std::memcpy(otherFatbin, rc::test::kTestFatbin, sizeof otherFatbin);
  otherFatbin[sizeof otherFatbin - 3] ^= 1; // other device code
  std::string manifest = writeManifest(dir, "app.rcm", otherFatbin);
  {
    Server srv(server, url, manifest, dir + "/server.log");
    ASSERT_TRUE(srv.waitReady(10000)) << srv.log();
    ChildResult r =
        runChild({app}, {"RC_SERVER=" + url}, dir + "/swapped.out", 60);
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("remote-clang: ignoring manifest " + manifest +
                            ": it is not the manifest of " + app + "'s build"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("is not loaded on this server"), std::string::npos)
        << r.output;
  }
  writeManifest(dir, "app.rcm");
  url = shmUrl("build-own"); // not the name the first server just left
  Server srv(server, url, manifest, dir + "/server2.log");
  ASSERT_TRUE(srv.waitReady(10000)) << srv.log();
  ChildResult r = runChild({app}, {"RC_SERVER=" + url}, dir + "/own.out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n" << srv.log();
  EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
}

TEST(RuntimeIntegration, NoServerFailsFastWithOneMessage) {
  TestDir testDir;
  const std::string &dir = testDir.path;
  auto t0 = std::chrono::steady_clock::now();
  ChildResult r =
      runChild({RC_DEVICE_COUNT_PROG},
               {"RC_SERVER=", "RC_CONNECT_TIMEOUT_MS=2000"}, dir + "/out", 30);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cudaGetDeviceCount: cudaErrorNoDevice count=0"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("cudaMalloc: cudaErrorNoDevice"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("remote-clang: no GPU server: RC_SERVER is not set"),
            std::string::npos)
      << r.output;
  // Unreachable: nobody listens on this port.
  r = runChild({RC_DEVICE_COUNT_PROG},
               {"RC_SERVER=" + loopbackTcpUrl(), "RC_CONNECT_TIMEOUT_MS=2000"},
               dir + "/out2", 30);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cudaErrorNoDevice"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("remote-clang: no GPU server"), std::string::npos)
      << r.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

// ---- --isolation process: a worker process per session --------------------
// The program is the same: it follows the supervisor's redirect to its
// worker on its own (docs/server-isolation.md, "Fault containment").
const std::vector<std::string> kIsolated{"--isolation", "process"};

TEST(RuntimeIntegration, IsolatedSessionRoundTripOverShm) {
  runProgram(shmUrl("iso"), RC_ROUNDTRIP_PROG, {"PASS"}, kIsolated);
}

TEST(RuntimeIntegration, IsolatedSessionRoundTripOverTcp) {
  runProgram(loopbackTcpUrl(), RC_ROUNDTRIP_PROG, {"PASS"}, kIsolated);
}

// The supervisor and the worker each authenticate the client.
TEST(RuntimeIntegration, IsolatedAuthenticatedRoundTripOverTcp) {
  runWithKeys(loopbackTcpUrl(), kIsolated);
}

TEST(RuntimeIntegration, IsolatedConcurrentClientsCopyStressOverShm) {
  runConcurrentCopyStress(shmUrl("isostress"), kIsolated);
}

// Four programs of one user start at once, and the server lets one user
// hold one worker it has not used yet: any that comes while another's
// reservation is out is told to retry in a few ms
// (HelloReply.retry_after_ms), and does so within its connect timeout.
// Every one runs.
TEST(RuntimeIntegration, IsolatedProgramsRetryARefusalThatMayPass) {
  ServedPrograms served;
  std::vector<std::string> args = kIsolated;
  args.insert(args.end(), {"--warm-workers", "4", "--log-level", "debug"});
  served.start(shmUrl("retry"), args, {"RC_SERVER_RESERVATIONS_PER_TENANT=1"});
  if (!served.running())
    return;
  std::vector<std::thread> clients;
  std::vector<ChildResult> results(4);
  for (size_t i = 0; i < results.size(); ++i)
    clients.emplace_back([&, i] {
      results[i] =
          runChild({RC_ROUNDTRIP_PROG}, served.env(),
                   served.dir() + "/c" + std::to_string(i) + ".out", 60);
    });
  for (std::thread &t : clients)
    t.join();
  // (Whether they overlapped is up to the scheduler: RuntimeApi.
  // ARefusalThatMayPassIsRetried shows the retry itself.)
  for (const ChildResult &r : results)
    EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                           << served.log();
}

// Whether the file `path` (a program's output) says `text` within
// `seconds`.
bool saysWithin(const std::string &path, const std::string &text, int seconds) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (readFile(path).find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

bool startsStreaming(const std::string &path, int seconds) {
  return saysWithin(path, "streaming", seconds);
}

// The worker rc-server's debug log says serves the client with this pid.
pid_t workerOf(const std::string &log, pid_t client) {
  size_t at = log.find("pid " + std::to_string(client) + ") from");
  size_t worker = log.find("goes to worker ", at);
  if (at == std::string::npos || worker == std::string::npos)
    return -1;
  return pid_t(std::atoll(log.c_str() + worker + 15));
}

// A worker that dies (here killed -9, as a crash or the kernel's OOM killer
// would) takes only its own session: its client gets a clear error at its
// next call, the other clients go on streaming, and the pool starts a
// replacement for the next client.
void killOneWorker(const std::string &url) {
  ServedPrograms served;
  served.start(url, {"--isolation", "process", "--warm-workers", "2",
                     "--log-level", "debug"});
  if (!served.running())
    return;
  const std::string &dir = served.dir();
  struct Clients : std::vector<pid_t> {
    ~Clients() {
      for (pid_t pid : *this)
        if (pid > 0) {
          kill(pid, SIGKILL);
          waitpid(pid, nullptr, 0);
        }
    }
  } clients;
  auto out = [&](size_t i) { return dir + "/c" + std::to_string(i) + ".out"; };
  for (size_t i = 0; i < 3; ++i) {
    clients.push_back(startChild({RC_STREAM_PROG}, served.env(), out(i)));
    ASSERT_TRUE(startsStreaming(out(i), 30))
        << readFile(out(i)) << "\n--- server log ---\n"
        << served.log();
  }
  pid_t worker = workerOf(served.log(), clients[0]);
  ASSERT_GT(worker, 0) << served.log();
  ASSERT_NE(worker, workerOf(served.log(), clients[1]));
  ASSERT_EQ(kill(worker, SIGKILL), 0);
  EXPECT_EQ(rc::test::waitBounded(clients[0], 30), 1) << readFile(out(0));
  clients[0] = 0;
  EXPECT_NE(readFile(out(0)).find("lost the connection"), std::string::npos)
      << readFile(out(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(waitpid(clients[i], nullptr, WNOHANG), 0)
        << "client " << i << " ended with the other's worker:\n"
        << readFile(out(i));
    EXPECT_EQ(readFile(out(i)).find("FAIL"), std::string::npos)
        << readFile(out(i));
  }
  for (size_t i = 1; i < 3; ++i) {
    kill(clients[i], SIGKILL);
    waitpid(clients[i], nullptr, 0);
    clients[i] = 0;
  }
  EXPECT_NE(served.log().find("ended with signal 9"), std::string::npos)
      << served.log();
  EXPECT_NE(served.log().find("no other session is affected"),
            std::string::npos)
      << served.log();
  ChildResult r =
      runChild({RC_ROUNDTRIP_PROG}, served.env(), dir + "/after.out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << served.log();
}

TEST(RuntimeIntegration, AWorkerThatDiesEndsOnlyItsSessionOverShm) {
  killOneWorker(shmUrl("isokill"));
}

TEST(RuntimeIntegration, AWorkerThatDiesEndsOnlyItsSessionOverTcp) {
  killOneWorker(loopbackTcpUrl());
}

// ---- rc-server --quotas: a tenant is the id of the key its clients hold --
// rc-server with tenant "team-a"'s key and a quotas file of `quotaLines`;
// env: what its programs run with (the key included).
struct TenantServer {
  TenantServer(const std::string &url, std::vector<std::string> args,
               const std::string &quotaLines) {
    key = keys.newKey("server.key", "team-a");
    quotas = keys.write("quotas", quotaLines, 0600);
    args.insert(args.end(), {"--auth-key-file", key, "--quotas", quotas});
    served.start(url, args);
    env = served.env();
    env.push_back("RC_AUTH_KEY_FILE=" + key);
  }
  rc::test::KeyDir keys;
  std::string key, quotas;
  ServedPrograms served;
  std::vector<std::string> env;
};

// With sessions=1, a second program of the tenant is refused at its first
// call naming the quota while the first streams; once the first is gone,
// the next is served. Without isolation the session counts; with it, the
// worker serving it.
void runWithSessionQuota(const std::string &url,
                         std::vector<std::string> serverArgs) {
  TenantServer t(url, std::move(serverArgs),
                 "team-a sessions=1\n* sessions=0\n");
  if (!t.served.running())
    return;
  const ServedPrograms &served = t.served;
  const std::vector<std::string> &env = t.env;
  const std::string &dir = served.dir();
  pid_t streamer = startChild({RC_STREAM_PROG}, env, dir + "/stream.out");
  ASSERT_TRUE(startsStreaming(dir + "/stream.out", 30))
      << readFile(dir + "/stream.out") << "\n--- server log ---\n"
      << served.log();
  ChildResult refused =
      runChild({RC_ROUNDTRIP_PROG}, env, dir + "/refused.out", 60);
  EXPECT_NE(refused.status, 0) << refused.output;
  EXPECT_NE(refused.output.find("tenant 'team-a' has 1 session(s) open"),
            std::string::npos)
      << refused.output;
  kill(streamer, SIGKILL);
  waitpid(streamer, nullptr, 0);
  // The server notices the streamer's end within a moment.
  ChildResult served1;
  for (int attempt = 0; attempt < 20; ++attempt) {
    served1 = runChild({RC_ROUNDTRIP_PROG}, env, dir + "/after.out", 60);
    if (served1.status == 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(served1.status, 0) << served1.output << "\n--- server log ---\n"
                               << served.log();
  EXPECT_NE(served.log().find("tenant 'team-a'"), std::string::npos)
      << served.log();
}

TEST(RuntimeIntegration, SessionQuotaOfATenantOverShm) {
  runWithSessionQuota(shmUrl("quota"), {});
}

TEST(RuntimeIntegration, SessionQuotaOfATenantWithIsolationOverTcp) {
  runWithSessionQuota(loopbackTcpUrl(), kIsolated);
}

// ---- rc-server --quotas device=SIZE: a tenant's sessions together -------
// One program of the tenant holds 6 MiB of its 8; another is refused 6
// more, naming the quota, and gets 2. Once the holder's session is gone
// the 6 fit again. With `killWorker` (--isolation process) the holder's
// worker is killed -9, so nothing in it gives the memory back: its
// supervisor does, from the worker's row of the shared budget table.
void runWithDeviceQuota(const std::string &url,
                        std::vector<std::string> serverArgs, bool killWorker) {
  serverArgs.insert(serverArgs.end(), {"--log-level", "debug"});
  TenantServer t(url, std::move(serverArgs), "team-a device=8MiB\n");
  if (!t.served.running())
    return;
  const ServedPrograms &served = t.served;
  const std::vector<std::string> &env = t.env;
  const std::string &dir = served.dir();
  pid_t holder =
      startChild({RC_ALLOC_HOLD_PROG, "6", "hold"}, env, dir + "/hold.out");
  ASSERT_TRUE(saysWithin(dir + "/hold.out", "allocated 6 MiB", 30))
      << readFile(dir + "/hold.out") << "\n--- server log ---\n"
      << served.log();
  ChildResult refused =
      runChild({RC_ALLOC_HOLD_PROG, "6"}, env, dir + "/refused.out", 60);
  EXPECT_EQ(refused.status, 1) << refused.output;
  EXPECT_NE(refused.output.find("refused: cudaErrorMemoryAllocation"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("tenant 'team-a''s device memory (6291456 of "
                                "8388608 bytes in use; its quota "
                                "device=8388608 in " +
                                t.quotas),
            std::string::npos)
      << refused.output;
  ChildResult fits =
      runChild({RC_ALLOC_HOLD_PROG, "2"}, env, dir + "/fits.out", 60);
  EXPECT_EQ(fits.status, 0) << fits.output;
  if (killWorker) {
    pid_t worker = workerOf(served.log(), holder);
    ASSERT_GT(worker, 0) << served.log();
    ASSERT_EQ(kill(worker, SIGKILL), 0);
  }
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  // The server notices the end within a moment.
  ChildResult after;
  for (int attempt = 0; attempt < 20; ++attempt) {
    after = runChild({RC_ALLOC_HOLD_PROG, "6"}, env, dir + "/after.out", 60);
    if (after.status == 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(after.status, 0) << after.output << "\n--- server log ---\n"
                             << served.log();
}

TEST(RuntimeIntegration, DeviceQuotaOfATenantOverShm) {
  runWithDeviceQuota(shmUrl("devquota"), {}, false);
}

TEST(RuntimeIntegration, DeviceQuotaOfATenantWithIsolationOverTcp) {
  runWithDeviceQuota(loopbackTcpUrl(), kIsolated, true);
}

// ---- rc-server --quotas priority=high -------------------------------------
// The tenant's streams run at the greatest priority, and its program's
// queries say so although it asked for the default. A worker loads the
// quotas too.
TEST(RuntimeIntegration, StreamPriorityOfATenantWithIsolationOverShm) {
  TenantServer t(shmUrl("priority"), kIsolated, "team-a priority=high\n");
  if (!t.served.running())
    return;
  ChildResult r = runChild({RC_STREAM_PRIORITY_PROG}, t.env,
                           t.served.dir() + "/priority.out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << t.served.log();
  EXPECT_NE(r.output.find("priority -5, attribute -5"), std::string::npos)
      << r.output;
}

// ---- rc-server --cache: chunks of uploads kept across sessions -----------
// Runs upload_check MIB SEED (every byte checked) and returns the bytes
// the server's cache held for it (RC_STATS's bytes_up_cached).
// upload_check's RC_STATS (mib MiB in `parts` uploads); every byte it read
// back was checked.
std::string uploadStats(const ServedPrograms &served, int mib, int seed,
                        int parts, const std::string &tag,
                        const std::vector<std::string> &moreEnv = {}) {
  std::string stats = served.dir() + "/" + tag + ".json";
  std::vector<std::string> env = served.env();
  env.push_back("RC_STATS=" + stats);
  env.insert(env.end(), moreEnv.begin(), moreEnv.end());
  bool cacheSet = false; // over shm uploads skip the cache unless asked
  for (const std::string &e : moreEnv)
    cacheSet = cacheSet || e.rfind("RC_CACHE=", 0) == 0;
  if (!cacheSet)
    env.push_back("RC_CACHE=1");
  ChildResult r = runChild({RC_UPLOAD_CHECK_PROG, std::to_string(mib),
                            std::to_string(seed), std::to_string(parts)},
                           env, served.dir() + "/" + tag + ".out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << served.log();
  return readFile(stats);
}

// A number of an RC_STATS document; -1 when it is not there.
long long statOf(const std::string &json, const std::string &key) {
  size_t at = json.find("\"" + key + "\":");
  EXPECT_NE(at, std::string::npos) << key << " in " << json;
  return at == std::string::npos
             ? -1
             : std::atoll(json.c_str() + at + key.size() + 3);
}

long long cachedUpload(const ServedPrograms &served, int mib, int seed,
                       const std::string &tag,
                       const std::vector<std::string> &moreEnv = {}) {
  return statOf(uploadStats(served, mib, seed, 1, tag, moreEnv),
                "bytes_up_cached");
}

// A chunk is found once the server has verified it, a moment after the
// session that sent it copied it: the next run may come first.
long long warmUpload(const ServedPrograms &served, int mib, int seed,
                     const std::string &tag) {
  long long cached = 0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    cached = cachedUpload(served, mib, seed, tag);
    if (cached == (long long)mib << 20)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return cached;
}

// 16 MiB of cache are four chunks of 4 MiB; an upload of 9 MiB is three
// (4 + 4 + 1).
void runContentCache(const std::string &url) {
  const long long nine = 9ll << 20;
  {
    ServedPrograms served;
    std::string metrics =
        "/tmp/rc-rt-cache-metrics-" + std::to_string(getpid());
    served.start(url, {"--cache", "16MiB", "--metrics", metrics});
    if (!served.running())
      return;
    EXPECT_EQ(cachedUpload(served, 9, 1, "cold"), 0);
    EXPECT_EQ(warmUpload(served, 9, 1, "warm"), nine);
    EXPECT_EQ(cachedUpload(served, 9, 1, "off", {"RC_CACHE=0"}), 0);
    // Three new chunks: the free one, then seed 1's two least recently used.
    EXPECT_EQ(cachedUpload(served, 9, 2, "other"), 0);
    EXPECT_EQ(warmUpload(served, 9, 2, "other-warm"), nine);
    long long after = cachedUpload(served, 9, 1, "evicted");
    EXPECT_GE(after, 0);
    EXPECT_LT(after, nine) << "seed 1's chunks were evicted";
    std::string doc = readFile(metrics);
    EXPECT_NE(doc.find("\"content_cache\":{\"capacity\":16777216"),
              std::string::npos)
        << doc;
    std::remove(metrics.c_str());
  }

  // A restarted server starts empty, and uploads go on as before.
  ServedPrograms restarted;
  restarted.start(url, {"--cache", "16MiB"});
  EXPECT_EQ(cachedUpload(restarted, 9, 1, "restarted"), 0);
  EXPECT_EQ(warmUpload(restarted, 9, 1, "restarted-warm"), nine);
}

// With a disk tier a restarted server still holds what was uploaded.
void runDiskTierAcrossRestart(const std::string &url) {
  const long long nine = 9ll << 20;
  TestDir disk;
  std::vector<std::string> args = {"--cache", "16MiB", "--cache-dir",
                                   disk.path + "/chunks"};
  {
    ServedPrograms served;
    served.start(url, args);
    if (!served.running())
      return;
    EXPECT_EQ(cachedUpload(served, 9, 5, "first"), 0);
    EXPECT_EQ(warmUpload(served, 9, 5, "second"), nine); // also on disk now
  }
  ServedPrograms restarted;
  restarted.start(url, args);
  EXPECT_NE(restarted.log().find("on disk 9 of 64 MiB"), std::string::npos)
      << restarted.log();
  EXPECT_EQ(cachedUpload(restarted, 9, 5, "after-restart"), nine);
}

TEST(RuntimeIntegration, ContentCacheDiskTierAcrossARestartOverShm) {
  runDiskTierAcrossRestart(shmUrl("cache-disk"));
}

TEST(RuntimeIntegration, ContentCacheAcrossSessionsEvictionAndRestartOverShm) {
  runContentCache(shmUrl("cache"));
}

TEST(RuntimeIntegration, ContentCacheAcrossSessionsEvictionAndRestartOverTcp) {
  runContentCache(loopbackTcpUrl());
}

// Over shm sending an upload's bytes is a copy, cheaper than hashing them:
// by default (RC_CACHE=auto) uploads there skip the cache.
TEST(RuntimeIntegration, UploadsOverShmSkipTheCacheUnlessAsked) {
  ServedPrograms served;
  served.start(shmUrl("cache-auto"), {"--cache", "16MiB"});
  if (!served.running())
    return;
  for (const char *tag : {"first", "second"}) {
    std::string stats = uploadStats(served, 9, 4, 1, tag, {"RC_CACHE=auto"});
    EXPECT_EQ(statOf(stats, "bytes_up_cached"), 0) << tag;
    EXPECT_EQ(statOf(stats, "cache_chunks_missed"), 0) << tag;
  }
  EXPECT_GT(statOf(uploadStats(served, 9, 4, 1, "forced", {"RC_CACHE=1"}),
                   "cache_chunks_missed"),
            0);
}

// While the cache misses every chunk (a model's first load), uploads stop
// asking first and send their bytes with their hashes; what they sent is
// in the cache all the same, and the next run asks and finds everything.
TEST(RuntimeIntegration, ColdUploadsGoUnaskedAndFillTheCacheOverShm) {
  ServedPrograms served;
  served.start(shmUrl("cache-unasked"), {"--cache", "64MiB"});
  if (!served.running())
    return;
  // Twelve uploads of 2 MiB: two asked and missed, then one in eight asks.
  std::string cold = uploadStats(served, 24, 3, 12, "cold");
  EXPECT_EQ(statOf(cold, "bytes_up_cached"), 0);
  EXPECT_GE(statOf(cold, "cache_uploads_unasked"), 8) << cold;
  EXPECT_EQ(statOf(cold, "cache_chunks_missed"), 12) << cold;
  std::string warm;
  for (int attempt = 0; attempt < 10; ++attempt) { // verified a moment later
    warm = uploadStats(served, 24, 3, 12, "warm");
    if (statOf(warm, "bytes_up_cached") == 24ll << 20)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(statOf(warm, "bytes_up_cached"), 24ll << 20) << warm;
  EXPECT_EQ(statOf(warm, "cache_uploads_unasked"), 0) << warm;
}

// rc-cache: a file preloaded is what a later upload of the whole file
// finds; listing, the report and eviction name the namespace's chunks.
// A GGUF model is preloaded tensor by tensor, as llama.cpp uploads it: the
// cache then holds the chunks of the tensor's own upload (its first 4 MiB,
// then the 1 MiB + 4 KiB left), not those of the file cut from its start.
TEST(RuntimeIntegration, RcCachePreloadsAGgufModelTensorByTensor) {
  ServedPrograms served;
  served.start(shmUrl("rc-cache-gguf"), {"--cache", "16MiB"});
  if (!served.running())
    return;
  std::string model = served.dir() + "/model.gguf";
  std::vector<uint8_t> f;
  auto raw = [&](const void *p, size_t n) {
    f.insert(f.end(), static_cast<const uint8_t *>(p),
             static_cast<const uint8_t *>(p) + n);
  };
  auto u32 = [&](uint32_t v) { raw(&v, 4); };
  auto u64 = [&](uint64_t v) { raw(&v, 8); };
  auto str = [&](const std::string &s) {
    u64(s.size());
    raw(s.data(), s.size());
  };
  const uint64_t small = 4000, large = (5 << 20) + 4096; // F32 bytes
  u32(0x46554747), u32(3), u64(2), u64(1);
  str("general.architecture"), u32(8), str("llama");
  str("norm.weight"), u32(1), u64(small / 4), u32(0), u64(0);
  str("blk.0.ffn.weight"), u32(1), u64(large / 4), u32(0), u64(small);
  while (f.size() % 32)
    f.push_back(0);
  size_t dataStart = f.size();
  for (uint64_t i = 0; i < (small + large) / 4; ++i)
    u32(uint32_t(i * 2654435761u));
  {
    std::ofstream out(model, std::ios::binary);
    out.write(reinterpret_cast<const char *>(f.data()), long(f.size()));
  }
  ChildResult r = runChild({RC_CACHE_TOOL, "preload", model}, served.env(),
                           served.dir() + "/preload.out", 60);
  ASSERT_EQ(r.status, 0) << r.output << served.log();
  EXPECT_NE(r.output.find("in 2 GGUF tensors"), std::string::npos) << r.output;
  std::string firstChunk =
      rc::hashContent(f.data() + dataStart + small, 4 << 20).hex();
  std::string list;
  for (int attempt = 0; attempt < 20; ++attempt) { // verified a moment later
    list = runChild({RC_CACHE_TOOL, "list"}, served.env(),
                    served.dir() + "/list.out", 60)
               .output;
    if (list.find(firstChunk) != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(list.find(firstChunk), std::string::npos) << list;
  EXPECT_NE(list.find(std::to_string(large - (4 << 20))), std::string::npos)
      << list;
}

TEST(RuntimeIntegration, RcCachePreloadsListsAndEvicts) {
  ServedPrograms served;
  served.start(shmUrl("rc-cache"), {"--cache", "16MiB"});
  if (!served.running())
    return;
  const std::string &dir = served.dir();
  std::string blob = dir + "/blob.bin";
  {
    std::ofstream f(blob, std::ios::binary);
    for (uint32_t i = 0; i < (9u << 20) / 4; ++i) {
      uint32_t v = i * 2654435761u;
      f.write(reinterpret_cast<const char *>(&v), 4);
    }
  }
  auto tool = [&](std::vector<std::string> args, const std::string &tag) {
    args.insert(args.begin(), RC_CACHE_TOOL);
    ChildResult r = runChild(args, served.env(), dir + "/" + tag + ".out", 60);
    EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                           << served.log();
    return r.output;
  };
  EXPECT_NE(tool({"preload", blob}, "preload").find("preloaded"),
            std::string::npos);
  std::string list;
  for (int attempt = 0; attempt < 20; ++attempt) { // verified a moment later
    list = tool({"list"}, "list");
    if (list.find("1048576") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Three chunks: 4 MiB, 4 MiB and the last 1 MiB.
  EXPECT_NE(list.find("4194304"), std::string::npos) << list;
  EXPECT_NE(list.find("1048576"), std::string::npos) << list;
  EXPECT_NE(tool({"report"}, "report").find("3 chunks, 9.0 MiB"),
            std::string::npos);
  std::string hash = list.substr(list.find('\n') + 1, 32);
  EXPECT_NE(tool({"evict", hash}, "evict1").find("evicted 1 chunks"),
            std::string::npos);
  EXPECT_EQ(tool({"list"}, "after").find(hash), std::string::npos);
  std::string all = tool({"evict"}, "evict-all");
  EXPECT_NE(all.find("evicted 2 chunks"), std::string::npos) << all;
  EXPECT_NE(all.find("0 chunks"), std::string::npos) << all;
  ChildResult bad = runChild({RC_CACHE_TOOL, "evict", "nothex"}, served.env(),
                             dir + "/bad.out", 60);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("is not a chunk's hash"), std::string::npos)
      << bad.output;
  // RC_CACHE by the one rule: a value the runtime would refuse stops the
  // tool, naming it, instead of being overwritten with 1.
  std::vector<std::string> badEnv = served.env();
  badEnv.push_back("RC_CACHE=yes");
  ChildResult badVar =
      runChild({RC_CACHE_TOOL, "list"}, badEnv, dir + "/badvar.out", 60);
  EXPECT_EQ(badVar.status, 2);
  EXPECT_NE(badVar.output.find("RC_CACHE=yes is not one of auto, 0, 1"),
            std::string::npos)
      << badVar.output;
}

// Programs that load CUDA themselves (docs/driver-api.md): with remote-
// clang's library folder on LD_LIBRARY_PATH, dlopen of each CUDA name
// finds remote-clang's library, cuGetProcAddress follows NVIDIA's
// versioning rules, and a PTX module is loaded, looked up, launched and
// its buffer copied back through the function pointers alone.
void runDlopen(const std::vector<std::string> &argv, bool setPath = true) {
  ServedPrograms served;
  served.start(shmUrl("dl"));
  if (!served.running())
    return;
  std::vector<std::string> env = served.env();
  if (setPath)
    env.push_back(std::string("LD_LIBRARY_PATH=") + RC_LIB_DIR);
  ChildResult r = runChild(argv, env, served.dir() + "/prog.out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << served.log();
  EXPECT_NE(r.output.find("1000 of 1000 values as expected"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
}

TEST(RuntimeIntegration, DlopenLibcudaSo1) {
  runDlopen({RC_DLOPEN_PROG, "libcuda.so.1", "copy"});
}

TEST(RuntimeIntegration, DlopenLibcudaSo) {
  runDlopen({RC_DLOPEN_PROG, "libcuda.so", "copy"});
}

// The runtime: driver functions through cudaGetDriverEntryPoint, and a
// launch by a host stub no kernel registered is refused, naming the stub.
TEST(RuntimeIntegration, DlopenLibcudartSo12) {
  runDlopen({RC_DLOPEN_PROG, "libcudart.so.12", "copy"});
}

// A folder of links under CUDA's names only (as a bundle or a package may
// lay them out): the runtime still finds the driver library beside the file
// the link names, for cudaGetDriverEntryPoint.
TEST(RuntimeIntegration, DlopenLibcudartThroughAFolderOfLinks) {
  TestDir links;
  for (auto [name, file] : {std::pair{"libcuda.so.1", "librc_cuda.so"},
                            std::pair{"libcudart.so.12", "librc_cudart.so"}}) {
    std::string target = std::string(RC_LIB_DIR) + "/" + file;
    ASSERT_EQ(symlink(target.c_str(), (links.path + "/" + name).c_str()), 0);
  }
  ServedPrograms served;
  served.start(shmUrl("dl-links"));
  if (!served.running())
    return;
  std::vector<std::string> env = served.env();
  env.push_back("LD_LIBRARY_PATH=" + links.path);
  ChildResult r = runChild({RC_DLOPEN_PROG, "libcudart.so.12", "copy"}, env,
                           served.dir() + "/prog.out", 60);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
}

// rc-run sets LD_LIBRARY_PATH itself.
TEST(RuntimeIntegration, DlopenThroughRcRun) {
  runDlopen({RC_RUN, RC_DLOPEN_PROG, "libcuda.so.1", "copy"}, false);
}

// Without remote-clang's folder the name is not found here (no driver on
// this machine) or is NVIDIA's: either way not remote-clang's.
TEST(RuntimeIntegration, DlopenWithoutLibraryFolderIsNotOurs) {
  TestDir dir;
  ChildResult r = runChild({RC_DLOPEN_PROG, "libcuda.so.1", "copy"}, {},
                           dir.path + "/prog.out", 60);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("PASS"), std::string::npos) << r.output;
}

// rc-server started with that folder on its library path would find
// remote-clang's libcuda.so.1 and serve through itself: it stops, naming
// the cause.
TEST(RuntimeIntegration, ServerRefusesRemoteClangsDriverLibrary) {
  std::string server = inTreeServer();
  if (server.empty())
    return;
  TestDir dir;
  ChildResult r = runChild({server, "--listen", shmUrl("guard")},
                           {std::string("LD_LIBRARY_PATH=") + RC_LIB_DIR},
                           dir.path + "/server.out", 30);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("libcuda.so.1 is remote-clang's client library"),
            std::string::npos)
      << r.output;
}

// NVIDIA's CUDA 13 runtime in the process with remote-clang's
// libcuda.so.1: the driver library's calls into a runtime must take
// librc_cudart's (versioned) functions, not NVIDIA's, which came first in
// the process; NVIDIA's runtime fails, told why, and nothing hangs.
TEST(RuntimeIntegration, NvidiasRuntimeBesideRemoteClangsDriver) {
  std::string prog = RC_NVIDIA_CUDART_PROG;
  if (prog.empty())
    GTEST_SKIP() << "no CUDA 13 runtime wheel to link a program to";
  ServedPrograms served;
  served.start(shmUrl("nv"));
  if (!served.running())
    return;
  std::vector<std::string> env = served.env();
  env.push_back(std::string("LD_LIBRARY_PATH=") + RC_LIB_DIR);
  ChildResult r = runChild({prog}, env, served.dir() + "/prog.out", 60);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("driver API: 1 device(s)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("NVIDIA's CUDA runtime (or another library of "
                          "NVIDIA's) is loaded with remote-clang's "
                          "libcuda.so.1"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("NVIDIA's runtime: cudaSuccess"), std::string::npos)
      << r.output;
}

// cuda-samples' systemWideAtomics pattern (programs/managed_atomics.cpp):
// host atomics on managed memory while a kernel may run end the program by
// SIGSEGV with the runtime's line, as on GPUs without concurrent managed
// access, never with a wrong sum; after a synchronization they are right.
void runManagedAtomics(const std::string &url, const char *mode,
                       const char *refusedAccess) {
  ServedPrograms served;
  served.start(url);
  if (!served.running())
    return;
  std::string outPath = served.dir() + "/" + mode + ".out";
  // The program ends by SIGSEGV on purpose (the runtime's line, then the
  // default action): in the sanitizer build, ASan must leave SIGSEGV to it.
  std::vector<std::string> env = served.env();
  const char *asan = std::getenv("ASAN_OPTIONS");
  env.push_back(std::string("ASAN_OPTIONS=") +
                (asan ? std::string(asan) + ":" : std::string()) +
                "handle_segv=0");
  pid_t pid = startChild({RC_MANAGED_ATOMICS_PROG, mode}, env, outPath);
  ASSERT_GT(pid, 0);
  int status = -1;
  for (int i = 0; i < 6000 && waitpid(pid, &status, WNOHANG) != pid; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ADD_FAILURE() << mode << " did not end within 60 s";
  }
  std::string output = readFile(outPath);
  EXPECT_EQ(output.find("FAIL"), std::string::npos) << output;
  if (!refusedAccess) {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
    EXPECT_NE(output.find("sync: PASS"), std::string::npos) << output;
    return;
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
      << "status " << status << "\n"
      << output;
  std::string line = std::string("remote-clang: the host ") + refusedAccess +
                     " managed memory at 0x";
  EXPECT_NE(output.find(line), std::string::npos) << output;
  EXPECT_NE(output.find("(cudaMallocManaged, 40 bytes at 0x"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find(") while the GPU may be using it; remote GPUs offer "
                        "no concurrent managed access "
                        "(cudaDevAttrConcurrentManagedAccess is 0): "
                        "synchronize first (cudaDeviceSynchronize, "
                        "cudaStreamSynchronize) or attach it to the host with "
                        "cudaStreamAttachMemAsync\n"),
            std::string::npos)
      << output;
  EXPECT_EQ(output.find("PASS"), std::string::npos) << output;
}

TEST(RuntimeIntegration, ManagedAtomicsWhileAKernelMayRunEndByNameOverShm) {
  runManagedAtomics(shmUrl("um-race"), "race", "wrote");
}

TEST(RuntimeIntegration, ManagedAtomicsWhileAKernelMayRunEndByNameOverTcp) {
  runManagedAtomics(loopbackTcpUrl(), "race", "wrote");
}

TEST(RuntimeIntegration, ManagedReadByAnotherThreadEndsByNameOverShm) {
  runManagedAtomics(shmUrl("um-thread"), "thread", "read");
}

TEST(RuntimeIntegration, ManagedAtomicsAfterASynchronizationAreRightOverShm) {
  runManagedAtomics(shmUrl("um-sync"), "sync", nullptr);
}

TEST(RuntimeIntegration, ManagedAtomicsAfterASynchronizationAreRightOverTcp) {
  runManagedAtomics(loopbackTcpUrl(), "sync", nullptr);
}
