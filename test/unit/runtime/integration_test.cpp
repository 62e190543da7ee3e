// End to end on one machine: a real rc-server (--test-device) over shm and
// tcp, and plain C++ programs linked to librc_cudart.so. Every wait is
// bounded; the server is killed by pid when a test ends.
#include "key_dir.h"
#include "programs/test_module.h"
#include "rc/fatbin.h"
#include "rc/manifest_file.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <glob.h>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

std::string findServer() {
  struct stat st;
  std::string configured = RC_SERVER_BIN;
  if (!configured.empty() && ::stat(configured.c_str(), &st) == 0)
    return configured;
  // Another build directory of this tree may have built it.
  glob_t g;
  std::string pattern = std::string(RC_SOURCE_DIR) + "/build*/bin/rc-server";
  std::string found;
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0 && g.gl_pathc)
    found = g.gl_pathv[0];
  globfree(&g);
  return found;
}

std::string tempDir() {
  char tmpl[] = "/tmp/rc-rt-itest-XXXXXX";
  return mkdtemp(tmpl) ? tmpl : "/tmp";
}

// The manifest the programs' registered module and kernel IDs refer to.
std::string writeManifest(const std::string &dir) {
  using namespace rc::manifest;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<Param>> ps{
      CreateParamDirect(fbb, "p", "float *", 0, 8, 8, ParamKind::Pointer),
      CreateParamDirect(fbb, "n", "int", 8, 4, 4),
      CreateParamDirect(fbb, "f", "float", 12, 4, 4)};
  std::vector<flatbuffers::Offset<LaunchSite>> sites{
      CreateLaunchSiteDirect(fbb, "roundtrip.cpp", 1, 1, "chevron")};
  std::vector<flatbuffers::Offset<Kernel>> ks{CreateKernelDirect(
      fbb, rc::test::kTestKernelId, rc::test::kTestKernelName,
      "scale(float*, int, float)", false, 0, &ps, 16, &sites)};
  std::vector<flatbuffers::Offset<Variable>> vs{
      CreateVariableDirect(fbb, rc::test::kTestVarId, rc::test::kTestVarName,
                           "coeffs", false, rc::test::kTestVarSize)};
  const uint8_t *fb = rc::test::kTestFatbin;
  uint64_t size = rc::fatbinSize(fb);
  std::vector<uint8_t> fatbin(fb, fb + size);
  std::vector<flatbuffers::Offset<Module>> mods{CreateModuleDirect(
      fbb, "roundtrip.cpp", rc::fatbinHash(fb, size), &fatbin)};
  FinishManifestBuffer(fbb, CreateManifestDirect(fbb, 1, &mods, &ks, &vs));
  std::string path = dir + "/roundtrip.rcm";
  std::string error;
  EXPECT_TRUE(
      rc::writeFile(path, fbb.GetBufferPointer(), fbb.GetSize(), &error))
      << error;
  return path;
}

int freeTcpPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

std::string readFile(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ChildResult {
  int status = -1; // exit code, or -1 when killed for time
  std::string output;
};

// Runs `argv` with extra environment, stdout+stderr captured, killed after
// timeoutS.
ChildResult runChild(const std::vector<std::string> &argv,
                     const std::vector<std::string> &env,
                     const std::string &outPath, int timeoutS) {
  pid_t pid = fork();
  if (pid == 0) {
    for (const std::string &e : env)
      putenv(strdup(e.c_str()));
    FILE *f = freopen(outPath.c_str(), "w", stdout);
    (void)f;
    dup2(fileno(stdout), 2);
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  ChildResult r;
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeoutS);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.output = readFile(outPath) + "\n[killed after " +
                 std::to_string(timeoutS) + " s]";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = readFile(outPath);
  return r;
}

class Server {
public:
  Server(const std::string &bin, const std::string &url,
         const std::string &manifest, const std::string &log,
         const std::vector<std::string> &extraArgs = {})
      : log_(log) {
    std::vector<std::string> args{bin, "--test-device", "--listen",
                                  url, "--manifest",    manifest};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    pid_ = fork();
    if (pid_ == 0) {
      FILE *f = freopen(log.c_str(), "w", stderr);
      (void)f;
      dup2(fileno(stderr), 1);
      std::vector<char *> argv;
      for (std::string &a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
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

// A test-device rc-server on `url` with `args`, serving the test manifest,
// both in a fresh directory that is removed when the test passed.
struct Served {
  std::string dir, manifest;
  std::unique_ptr<Server> server;
  ~Served() {
    server.reset(); // stopped before its directory goes
    if (!dir.empty() && !testing::Test::HasFailure())
      std::filesystem::remove_all(dir); // kept for inspection on failure
  }
};

// Starts *s; s->server stays null when the test was skipped (rc-server is
// not built) or failed (it did not start).
void serve(const std::string &url, const std::vector<std::string> &args,
           Served *s) {
  std::string bin = findServer();
  if (bin.empty())
    GTEST_SKIP() << "rc-server is not built yet (looked for " RC_SERVER_BIN
                    " and " RC_SOURCE_DIR "/build*/bin/rc-server)";
  s->dir = tempDir();
  s->manifest = writeManifest(s->dir);
  auto server = std::make_unique<Server>(bin, url, s->manifest,
                                         s->dir + "/server.log", args);
  ASSERT_TRUE(server->waitReady(10000)) << "rc-server did not start:\n"
                                        << server->log();
  s->server = std::move(server);
}

// Starts a test-device server on `url` and runs `prog` against it.
void runProgram(const std::string &url, const char *prog,
                const std::vector<std::string> &expect) {
  Served s;
  serve(url, {}, &s);
  if (!s.server)
    return;
  ChildResult r =
      runChild({prog}, {"RC_SERVER=" + url, "RC_MANIFEST=" + s.manifest},
               s.dir + "/prog.out", 60);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                         << s.server->log();
  for (const std::string &e : expect)
    EXPECT_NE(r.output.find(e), std::string::npos)
        << "missing '" << e << "' in:\n"
        << r.output;
}

} // namespace

TEST(RuntimeIntegration, RoundTripOverShm) {
  runProgram("shm://rc-rt-" + std::to_string(getpid()), RC_ROUNDTRIP_PROG,
             {"PASS"});
}

TEST(RuntimeIntegration, AsyncErrorReportedAtNextSyncOverShm) {
  runProgram("shm://rc-rt-err-" + std::to_string(getpid()), RC_ASYNC_ERROR_PROG,
             {"at call: cudaSuccess", "after: cudaSuccess",
              "remote-clang: GPU server error: cudaMemset"});
}

// Function attributes, occupancy, cooperative / PDL launches, 2D and peer
// copies, host functions and ggml's VMM pool through librc_cuda.so.
TEST(RuntimeIntegration, DriverSurfaceOverShm) {
  runProgram("shm://rc-rt-drv-" + std::to_string(getpid()),
             RC_DRIVER_SURFACE_PROG, {"PASS", "pci bus id: 0000:00:00.0"});
}

TEST(RuntimeIntegration, RoundTripOverTcp) {
  int port = freeTcpPort();
  ASSERT_GT(port, 0);
  runProgram("tcp://127.0.0.1:" + std::to_string(port), RC_ROUNDTRIP_PROG,
             {"PASS"});
}

// rc-server with --auth-key-file: the program with a copy of the key runs,
// without one (or with another key) it fails at its first CUDA call with a
// message naming RC_AUTH_KEY_FILE, and the server keeps serving.
void runWithKeys(const std::string &url) {
  rc::test::KeyDir keys;
  std::string key = keys.newKey("server.key"), other = keys.newKey("other");
  Served s;
  serve(url, {"--auth-key-file", key}, &s);
  if (!s.server)
    return;
  std::vector<std::string> env{"RC_SERVER=" + url, "RC_MANIFEST=" + s.manifest};
  ChildResult none =
      runChild({RC_ROUNDTRIP_PROG}, env, s.dir + "/none.out", 60);
  EXPECT_NE(none.status, 0) << none.output;
  EXPECT_NE(none.output.find("authentication required"), std::string::npos)
      << none.output;
  EXPECT_NE(none.output.find("RC_AUTH_KEY_FILE"), std::string::npos)
      << none.output;
  env.push_back("RC_AUTH_KEY_FILE=" + other);
  ChildResult wrong =
      runChild({RC_ROUNDTRIP_PROG}, env, s.dir + "/wrong.out", 60);
  EXPECT_NE(wrong.status, 0) << wrong.output;
  EXPECT_NE(wrong.output.find("authentication failed"), std::string::npos)
      << wrong.output;
  // The failure makes this host wait a moment before its next attempt.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  env.back() = "RC_AUTH_KEY_FILE=" + key;
  ChildResult right =
      runChild({RC_ROUNDTRIP_PROG}, env, s.dir + "/right.out", 60);
  EXPECT_EQ(right.status, 0) << right.output << "\n--- server log ---\n"
                             << s.server->log();
  EXPECT_NE(right.output.find("PASS"), std::string::npos) << right.output;
}

TEST(RuntimeIntegration, AuthenticatedRoundTripOverTcp) {
  int port = freeTcpPort();
  ASSERT_GT(port, 0);
  runWithKeys("tcp://127.0.0.1:" + std::to_string(port));
}

TEST(RuntimeIntegration, AuthenticatedRoundTripOverShm) {
  runWithKeys("shm://rc-rt-auth-" + std::to_string(getpid()));
}

// Several clients at once, each copying sizes around the RMA thresholds
// both ways with every byte checked (programs/copy_stress.cpp): uploads
// through the upload ring, read-backs written by RMA, and the inline paths
// beside them, in one server process.
void runConcurrentCopyStress(const std::string &url) {
  Served s;
  serve(url, {}, &s);
  if (!s.server)
    return;
  std::vector<std::thread> clients;
  std::vector<ChildResult> results(4);
  for (size_t i = 0; i < results.size(); ++i)
    clients.emplace_back([&, i] {
      results[i] = runChild(
          {RC_COPY_STRESS_PROG, "40", std::to_string(i + 1)},
          {"RC_SERVER=" + url, "RC_MANIFEST=" + s.manifest, "RC_RMA=1"},
          s.dir + "/stress" + std::to_string(i) + ".out", 120);
    });
  for (std::thread &t : clients)
    t.join();
  for (const ChildResult &r : results) {
    EXPECT_EQ(r.status, 0) << r.output << "\n--- server log ---\n"
                           << s.server->log();
    EXPECT_NE(r.output.find("PASS: 40 iterations"), std::string::npos)
        << r.output;
  }
}

TEST(RuntimeIntegration, ConcurrentClientsCopyStressOverShm) {
  runConcurrentCopyStress("shm://rc-rt-stress-" + std::to_string(getpid()));
}

TEST(RuntimeIntegration, ConcurrentClientsCopyStressOverTcp) {
  int port = freeTcpPort();
  ASSERT_GT(port, 0);
  runConcurrentCopyStress("tcp://127.0.0.1:" + std::to_string(port));
}

TEST(RuntimeIntegration, NoServerFailsFastWithOneMessage) {
  std::string dir = tempDir();
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
  int port = freeTcpPort();
  r = runChild({RC_DEVICE_COUNT_PROG},
               {"RC_SERVER=tcp://127.0.0.1:" + std::to_string(port),
                "RC_CONNECT_TIMEOUT_MS=2000"},
               dir + "/out2", 30);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cudaErrorNoDevice"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("remote-clang: no GPU server"), std::string::npos)
      << r.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  if (!testing::Test::HasFailure())
    std::filesystem::remove_all(dir);
}
