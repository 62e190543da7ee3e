// rc-server with --gpu-sharing mps on a real GPU (docs/design/gpu-sharing.md):
// what a device assert and an illegal address in one session do to another
// session running beside it on the same MPS server, whether rc-server serves
// new sessions again afterwards, and the daemon's supervision (restarted
// when killed, gone after the server). Each test prints a "MEASURED" line
// that the decision record's rows come from. Skipped without libcuda.so.1,
// a usable GPU or nvidia-cuda-mps-control on PATH.
#include "gpu_manifest.h"
#include "gpu_sharing/mps_daemon.h"
#include "hand_client.h"
#include "key_dir.h"
#include "process_util.h"
#include "rc/hex.h"
#include "rc/transport.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <thread>

using namespace rc::server::test;

namespace {

using Clock = std::chrono::steady_clock;

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

// Why this machine cannot run these tests; "" when it can.
std::string whyNoMps() {
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    return "no libcuda.so.1: no GPU here";
  if (rc::server::findOnPath("nvidia-cuda-mps-control").empty())
    return "nvidia-cuda-mps-control is not on PATH";
  return "";
}

struct Remote {
  std::unique_ptr<rc::transport::Connection> conn;
  Bytes roundTrip(const Bytes &msg) {
    return rc::server::test::roundTrip(*conn, msg, 20000);
  }
};

// A session: through the supervisor's redirect to a worker (isolated), or
// straight at `url`. False, without a test failure, when none opened: a
// server recovering from a fault may refuse for a while.
bool trySession(Remote &r, const std::string &url, uint64_t hash,
                bool isolated) {
  std::string err;
  r.conn = rc::transport::connect(url, 2000, &err);
  if (!r.conn)
    return false;
  Bytes reply = r.roundTrip(hello({hash}));
  const wire::HelloReply *hr = asHelloReply(reply);
  if (isolated) {
    if (!hr || !hr->redirect() || !hr->ticket())
      return false;
    std::string worker =
        rc::transport::redirectUrl(hr->redirect()->str(), url, &err);
    std::vector<uint8_t> ticket(hr->ticket()->begin(), hr->ticket()->end());
    r.conn = rc::transport::connect(worker, 5000, &err);
    if (!r.conn)
      return false;
    reply = r.roundTrip(ticketHello({hash}, ticket));
    hr = asHelloReply(reply);
  }
  return hr && hr->ok() && hr->devices()->Get(0)->backend()->str() == "cuda";
}

// The first error of a batch's reply: 0 when it had none, -1 when there
// was no reply at all (the session's connection is gone).
int firstError(const Bytes &reply, std::string *message = nullptr) {
  const wire::BatchReply *br = asBatchReply(reply);
  if (!br)
    return -1;
  if (br->errors()->size() == 0)
    return 0;
  if (message && br->errors()->Get(0)->message())
    *message = br->errors()->Get(0)->message()->str();
  return int(br->errors()->Get(0)->code());
}

// 256 floats i*3 in a new allocation; its address (0 when that failed).
uint64_t scaledBuffer(Remote &r, const GpuManifest &g, uint64_t seq) {
  Bytes reply = r.roundTrip(batch(seq, {cMalloc(1024)}));
  if (firstError(reply) != 0)
    return 0;
  uint64_t buf = resultAt(asBatchReply(reply), 0)->addr();
  Bytes data(1024), three(4);
  for (int i = 0; i < 256; ++i) {
    float f = float(i);
    std::memcpy(data.data() + 4 * i, &f, 4);
  }
  float f = 3.0f;
  std::memcpy(three.data(), &f, 4);
  reply = r.roundTrip(
      batch(seq + 1,
            {cH2D(buf, data), cSymbolWrite(g.table, 0, three),
             cLaunch(g.scale, scaleArgs(buf, 256), 0, {1, 1, 1}, {256, 1, 1}),
             cDeviceSync()}));
  return firstError(reply) == 0 ? buf : 0;
}

// What reading `buf` (scaledBuffer's) back gives: 0 with the right
// numbers, the error code, or -2 for wrong numbers without an error (the
// one outcome that is never acceptable).
int readBack(Remote &r, uint64_t buf, uint64_t seq) {
  Bytes reply = r.roundTrip(batch(seq, {cD2H(buf, 1024)}));
  int code = firstError(reply);
  if (code != 0)
    return code;
  const wire::BatchReply *br = asBatchReply(reply);
  std::vector<float> out(256);
  std::memcpy(out.data(), resultAt(br, 0)->payload()->data(), 1024);
  for (int i = 0; i < 256; ++i)
    if (out[i] != 3.0f * float(i))
      return -2;
  return 0;
}

std::string describe(int code) {
  if (code == 0)
    return "completed correctly";
  if (code == -1)
    return "lost its connection";
  if (code == -2)
    return "WRONG NUMBERS WITHOUT AN ERROR";
  return "failed with CUDA error " + std::to_string(code);
}

// A new session is served and computes right within `timeoutMs`; how long
// that took (-1: never).
long recoveryMs(const std::string &url, const GpuManifest &g, bool isolated,
                int timeoutMs) {
  auto begin = Clock::now();
  while (Clock::now() - begin < std::chrono::milliseconds(timeoutMs)) {
    Remote r;
    if (trySession(r, url, g.hash, isolated)) {
      uint64_t buf = scaledBuffer(r, g, 100);
      if (buf && readBack(r, buf, 102) == 0)
        return long(std::chrono::duration_cast<std::chrono::milliseconds>(
                        Clock::now() - begin)
                        .count());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return -1;
}

enum class Fault { DeviceAssert, IllegalAddress };

// One session faults while another has a kernel running and a third holds
// memory, all workers of one MPS server. The faulting session gets its own
// error (710 or 700); the others either complete correctly or fail with an
// error (never wrong numbers); once all three ended, a new session is
// served within 60 s, by the same supervisor.
void faultBesideOthers(Fault fault) {
  std::string why = whyNoMps();
  if (!why.empty())
    GTEST_SKIP() << why;
  GpuManifest g = writeGpuManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", g.path, "--isolation", "process",
                "--warm-workers", "3", "--gpu-sharing", "mps"});
  if (!server.waitFor("listening on", 60000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  ASSERT_NE(server.text.find("sessions share the GPU through MPS"),
            std::string::npos)
      << server.text;
  Remote running, faulting, holding;
  ASSERT_TRUE(trySession(running, url, g.hash, true));
  ASSERT_TRUE(trySession(faulting, url, g.hash, true));
  ASSERT_TRUE(trySession(holding, url, g.hash, true));
  uint64_t bufRunning = scaledBuffer(running, g, 10);
  uint64_t bufHolding = scaledBuffer(holding, g, 10);
  ASSERT_NE(bufRunning, 0u);
  ASSERT_NE(bufHolding, 0u);
  // A kernel of `running` spins (about 0.5 s) while the fault happens.
  Bytes spin(8);
  long long cycles = 1000000000LL;
  std::memcpy(spin.data(), &cycles, 8);
  running.roundTrip(batch(20, {cLaunch(g.spin, spin, 0, {1, 1, 1}, {1, 1, 1})},
                          /*replyWanted=*/true));
  Bytes reply;
  int expected;
  if (fault == Fault::DeviceAssert) {
    Bytes failing(4);
    int thread = 5;
    std::memcpy(failing.data(), &thread, 4);
    reply = faulting.roundTrip(
        batch(21, {cLaunch(g.check, failing, 0, {1, 1, 1}, {32, 1, 1}),
                   cDeviceSync()}));
    expected = 710;
  } else {
    Bytes small = faulting.roundTrip(batch(21, {cMalloc(256)}));
    uint64_t buf = resultAt(asBatchReply(small), 0)->addr();
    reply =
        faulting.roundTrip(batch(22, {cLaunch(g.scale, scaleArgs(buf, 1 << 30),
                                              0, {1 << 20, 1, 1}, {1024, 1, 1}),
                                      cDeviceSync()}));
    expected = 700;
  }
  std::string message;
  EXPECT_EQ(firstError(reply, &message), expected) << message;
  // What the others see: the running kernel's end, then both buffers.
  std::string syncMessage;
  int runningSync =
      firstError(running.roundTrip(batch(23, {cDeviceSync()})), &syncMessage);
  int runningData = runningSync == 0 ? readBack(running, bufRunning, 24) : -3;
  int holdingData = readBack(holding, bufHolding, 25);
  const char *name =
      fault == Fault::DeviceAssert ? "device assert" : "illegal address";
  std::string seen = "sync " + describe(runningSync);
  seen += runningSync == 0 ? "; its data " + describe(runningData)
                           : " (" + syncMessage + ")";
  std::printf("MEASURED mps %s: session with a running kernel: %s; session "
              "holding memory: %s\n",
              name, seen.c_str(), describe(holdingData).c_str());
  EXPECT_NE(runningData, -2);
  EXPECT_NE(holdingData, -2);
  running.conn.reset();
  faulting.conn.reset();
  holding.conn.reset();
  long took = recoveryMs(url, g, true, 60000);
  std::printf("MEASURED mps %s: a new session served correctly %s\n", name,
              took < 0 ? "NEVER within 60 s"
                       : ("after " + std::to_string(took) + " ms").c_str());
  EXPECT_GE(took, 0) << server.text;
  EXPECT_EQ(count(server.text, "restarting"), 0u) << server.text;
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  std::printf("%s", server.text.c_str());
}

TEST(GpuMps, ADeviceAssertBesideOtherSessionsOfOneMpsServer) {
  faultBesideOthers(Fault::DeviceAssert);
}

TEST(GpuMps, AnIllegalAddressBesideOtherSessionsOfOneMpsServer) {
  faultBesideOthers(Fault::IllegalAddress);
}

// The pids of processes whose parent is `parent` and whose command line
// starts with `name`'s path.
std::vector<pid_t> childrenNamed(pid_t parent, const std::string &name) {
  std::vector<pid_t> found;
  DIR *proc = opendir("/proc");
  if (!proc)
    return found;
  while (dirent *e = readdir(proc)) {
    pid_t pid = pid_t(std::atoi(e->d_name));
    if (pid <= 0)
      continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    size_t close = line.rfind(')');
    if (close == std::string::npos)
      continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2 ||
        ppid != parent)
      continue;
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
    std::string argv0;
    std::getline(cmd, argv0, '\0');
    if (argv0.find(name) != std::string::npos)
      found.push_back(pid);
  }
  closedir(proc);
  return found;
}

// The daemon is rc-server's child: killed, it is started again and new
// sessions are served; at the server's end it is gone. In one process
// (--isolation none) a fault restarts the server, which starts a daemon
// of its own again.
TEST(GpuMps, TheDaemonIsSupervisedAndAFaultInProcessGetsAFreshOne) {
  std::string why = whyNoMps();
  if (!why.empty())
    GTEST_SKIP() << why;
  GpuManifest g = writeGpuManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", g.path, "--gpu-sharing", "mps"});
  if (!server.waitFor("listening on", 60000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  std::vector<pid_t> daemons =
      childrenNamed(server.pid, "nvidia-cuda-mps-control");
  ASSERT_EQ(daemons.size(), 1u) << server.text;
  EXPECT_GE(recoveryMs(url, g, false, 20000), 0) << server.text;
  kill(daemons[0], SIGKILL);
  ASSERT_TRUE(server.waitFor("the MPS control daemon runs again", 20000))
      << server.text;
  long afterKill = recoveryMs(url, g, false, 60000);
  std::printf("MEASURED mps daemon killed: a new session served correctly %s\n",
              afterKill < 0
                  ? "NEVER within 60 s"
                  : ("after " + std::to_string(afterKill) + " ms").c_str());
  EXPECT_GE(afterKill, 0) << server.text;
  // An illegal address in process: the server restarts with a new daemon.
  {
    Remote r;
    ASSERT_TRUE(trySession(r, url, g.hash, false));
    Bytes small = r.roundTrip(batch(1, {cMalloc(256)}));
    uint64_t buf = resultAt(asBatchReply(small), 0)->addr();
    Bytes reply =
        r.roundTrip(batch(2, {cLaunch(g.scale, scaleArgs(buf, 1 << 30), 0,
                                      {1 << 20, 1, 1}, {1024, 1, 1}),
                              cDeviceSync()}));
    EXPECT_EQ(firstError(reply), 700);
  }
  ASSERT_TRUE(server.waitFor("restarting", 20000)) << server.text;
  for (int i = 0; i < 300 && count(server.text, "listening on") < 2; ++i)
    server.waitFor("\x01", 100);
  ASSERT_EQ(count(server.text, "listening on"), 2u) << server.text;
  EXPECT_EQ(count(server.text, "sessions share the GPU through MPS"), 2u)
      << server.text;
  long afterFault = recoveryMs(url, g, false, 60000);
  std::printf("MEASURED mps in-process fault: a new session served correctly "
              "%s\n",
              afterFault < 0
                  ? "NEVER within 60 s"
                  : ("after " + std::to_string(afterFault) + " ms").c_str());
  EXPECT_GE(afterFault, 0) << server.text;
  daemons = childrenNamed(server.pid, "nvidia-cuda-mps-control");
  ASSERT_EQ(daemons.size(), 1u) << server.text;
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  // Quit at the server's end: nothing of it is left.
  EXPECT_TRUE(kill(daemons[0], 0) != 0 && errno == ESRCH)
      << "the MPS control daemon outlived rc-server";
  std::printf("%s", server.text.c_str());
}

// The variables of process `pid`'s environment that start with `prefix`.
std::vector<std::string> environmentOf(pid_t pid, const std::string &prefix) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  std::vector<std::string> found;
  for (std::string entry; std::getline(in, entry, '\0');)
    if (entry.rfind(prefix, 0) == 0)
      found.push_back(entry);
  return found;
}

// With --quotas under MPS, a tenant whose quota has sm= and device= gets a
// worker started with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and
// CUDA_MPS_PINNED_DEVICE_MEM_LIMIT; another tenant a warm worker without
// them. Both compute right.
TEST(GpuMps, ATenantsWorkerCarriesTheMpsBoundsOfItsQuota) {
  std::string why = whyNoMps();
  if (!why.empty())
    GTEST_SKIP() << why;
  GpuManifest g = writeGpuManifest();
  rc::test::KeyDir dir;
  rc::auth::Key a{"team-a", Bytes(32)}, b{"team-b", Bytes(32)};
  rc::auth::randomBytes(a.secret.data(), 32);
  rc::auth::randomBytes(b.secret.data(), 32);
  auto line = [](const rc::auth::Key &k) {
    return k.id + " " + rc::hexBytes(k.secret.data(), 32) + "\n";
  };
  std::string keys = dir.write("keys", line(a) + line(b), 0600);
  std::string quotas = dir.write(
      "quotas", "team-a sm=25 device=1GiB\nteam-b sessions=2\n", 0600);
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", g.path, "--isolation", "process",
                "--warm-workers", "1", "--auth-key-file", keys, "--quotas",
                quotas, "--gpu-sharing", "mps"});
  if (!server.waitFor("listening on", 60000)) {
    if (noUsableGpu(server.text))
      GTEST_SKIP() << server.text;
    FAIL() << server.text;
  }
  auto session = [&](const rc::auth::Key &key, Remote *r) {
    HandClient sup, worker;
    Redirected to = redirectIn(sup.handshake(url, g.hash, key), url);
    if (to.url.empty())
      return false;
    Bytes reply = worker.handshake(to.url, g.hash, key, to.ticket);
    r->conn = std::move(worker.conn);
    return opened(reply);
  };
  Remote ra, rb;
  ASSERT_TRUE(session(a, &ra)) << server.text;
  ASSERT_TRUE(session(b, &rb)) << server.text;
  uint64_t bufA = scaledBuffer(ra, g, 10), bufB = scaledBuffer(rb, g, 10);
  ASSERT_NE(bufA, 0u);
  ASSERT_NE(bufB, 0u);
  EXPECT_EQ(readBack(ra, bufA, 12), 0);
  EXPECT_EQ(readBack(rb, bufB, 12), 0);
  int bounded = 0, unbounded = 0;
  for (pid_t worker : childrenNamed(server.pid, "rc-server")) {
    std::vector<std::string> env = environmentOf(worker, "CUDA_MPS_");
    std::string all;
    for (const std::string &e : env)
      all += e + " ";
    if (all.find("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 ") !=
        std::string::npos) {
      ++bounded;
      EXPECT_NE(all.find("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=1024M"),
                std::string::npos)
          << all;
    } else {
      ++unbounded;
      EXPECT_EQ(all.find("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"), std::string::npos)
          << all;
    }
    // Every worker is a client of the server's own daemon.
    EXPECT_NE(all.find("CUDA_MPS_PIPE_DIRECTORY=/"), std::string::npos) << all;
  }
  std::printf("MEASURED mps quotas: %d worker(s) with team-a's bounds, %d "
              "without\n",
              bounded, unbounded);
  EXPECT_EQ(bounded, 1);
  EXPECT_GE(unbounded, 1); // team-b's, and the warm one
  ra.conn.reset();
  rb.conn.reset();
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
  std::printf("%s", server.text.c_str());
}

} // namespace
