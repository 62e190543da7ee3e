// rc-server's MPS control daemon (gpu_sharing/), on the host: a fake
// nvidia-cuda-mps-control records how it is started, the environment it
// and its clients get and the commands sent on its control pipe, so the
// supervision is checked without a GPU: start, the clients' environment,
// `quit` at the end (a kill when it does not quit), a restart after it
// died, and the choice of time-slicing where MPS is not available.
#include "gpu_sharing/gpu_sharing.h"
#include "process_util.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace rc::server;
using rc::server::test::Child;

namespace {

// What the fake does with `quit`: end, or ignore it (and SIGTERM), so only
// a kill ends it.
enum class OnQuit { End, Ignore };

// A directory holding the fake control program and its record.
struct FakeMps {
  std::string dir, control, record;
  explicit FakeMps(OnQuit onQuit = OnQuit::End, bool failAtStart = false) {
    char tmpl[] = "/tmp/rc_fake_mps_XXXXXX";
    dir = mkdtemp(tmpl) ? tmpl : "";
    EXPECT_FALSE(dir.empty());
    control = dir + "/nvidia-cuda-mps-control";
    record = dir + "/record";
    std::ofstream script(control);
    script << "#!/bin/sh\n"
           << "rec='" << record << "'\n"
           << "fifo=\"$CUDA_MPS_PIPE_DIRECTORY/control\"\n"
           << "if [ \"$1\" = -f ]; then\n"
           << "  echo \"start pid=$$ pipe=$CUDA_MPS_PIPE_DIRECTORY "
              "log=$CUDA_MPS_LOG_DIRECTORY\" >> \"$rec\"\n";
    if (failAtStart)
      script << "  echo 'fake: no GPU for MPS here'; exit 3\n";
    if (onQuit == OnQuit::Ignore)
      script << "  trap '' TERM\n";
    script << "  mkfifo \"$fifo\"\n"
           << "  while :; do\n"
           << "    read -r cmd < \"$fifo\" || continue\n"
           << "    echo \"command $cmd\" >> \"$rec\"\n";
    if (onQuit == OnQuit::End)
      script << "    [ \"$cmd\" = quit ] && { rm -f \"$fifo\"; exit 0; }\n";
    script << "  done\n"
           << "fi\n"
           << "echo \"client pipe=$CUDA_MPS_PIPE_DIRECTORY\" >> \"$rec\"\n"
           << "cat > \"$fifo\"\n";
    script.close();
    chmod(control.c_str(), 0755);
  }
  ~FakeMps() {
    if (!dir.empty())
      std::filesystem::remove_all(dir);
  }
  std::string text() const {
    std::ifstream in(record);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }
  // Lines of the record starting with `prefix`.
  std::vector<std::string> lines(const std::string &prefix) const {
    std::vector<std::string> out;
    std::stringstream all(text());
    for (std::string line; std::getline(all, line);)
      if (line.rfind(prefix, 0) == 0)
        out.push_back(line);
    return out;
  }
  bool waitForLines(const std::string &prefix, size_t n, int timeoutMs) const {
    for (int waited = 0; waited < timeoutMs; waited += 20) {
      if (lines(prefix).size() >= n)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

// The pid the fake daemon's start line names.
pid_t startedPid(const std::string &line) {
  size_t at = line.find("pid=");
  return at == std::string::npos ? -1 : pid_t(std::stol(line.substr(at + 4)));
}

MpsDaemonOptions optionsFor(const FakeMps &fake) {
  MpsDaemonOptions options;
  options.control = fake.control;
  options.parentDir = fake.dir;
  options.readyTimeoutMs = 5000;
  options.quitTimeoutMs = 2000;
  options.restartDelayMs = 100;
  return options;
}

bool processGone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

TEST(MpsDaemon, StartsInAPrivateDirectoryAndQuitsOnItsPipeAtStop) {
  FakeMps fake;
  MpsDaemon daemon(optionsFor(fake));
  std::string why;
  ASSERT_TRUE(daemon.start(&why)) << why;
  const std::string dir = daemon.directory();
  struct stat st{};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << dir;
  auto env = daemon.clientEnvironment();
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0].first, "CUDA_MPS_PIPE_DIRECTORY");
  EXPECT_EQ(env[0].second, dir + "/pipe");
  EXPECT_EQ(env[1].first, "CUDA_MPS_LOG_DIRECTORY");
  EXPECT_EQ(env[1].second, dir + "/log");
  auto starts = fake.lines("start");
  ASSERT_EQ(starts.size(), 1u) << fake.text();
  // The daemon got its own directories, not a system-wide /tmp/nvidia-mps.
  EXPECT_NE(starts[0].find("pipe=" + dir + "/pipe log=" + dir + "/log"),
            std::string::npos)
      << starts[0];
  pid_t pid = startedPid(starts[0]);
  ASSERT_GT(pid, 0);
  EXPECT_FALSE(processGone(pid));
  // A Ctrl-C to rc-server's process group does not reach it.
  EXPECT_NE(getpgid(pid), getpgid(0));
  daemon.stop();
  EXPECT_EQ(fake.lines("command").size(), 1u) << fake.text();
  EXPECT_EQ(fake.lines("command quit").size(), 1u) << fake.text();
  // Its client, the quit, used the same pipe.
  EXPECT_EQ(fake.lines("client pipe=" + dir + "/pipe").size(), 1u)
      << fake.text();
  EXPECT_TRUE(processGone(pid));
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_EQ(daemon.restarts(), 0);
}

TEST(MpsDaemon, IsStartedAgainWhenItDiesWithTheSamePipe) {
  FakeMps fake;
  MpsDaemon daemon(optionsFor(fake));
  std::string why;
  ASSERT_TRUE(daemon.start(&why)) << why;
  pid_t first = startedPid(fake.lines("start")[0]);
  ASSERT_EQ(kill(first, SIGKILL), 0);
  ASSERT_TRUE(fake.waitForLines("start", 2, 5000)) << fake.text();
  for (int i = 0; i < 100 && daemon.restarts() < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(daemon.restarts(), 1);
  auto starts = fake.lines("start");
  pid_t second = startedPid(starts[1]);
  EXPECT_NE(second, first);
  // Clients keep the environment they were given: the same directories.
  EXPECT_NE(starts[1].find("pipe=" + daemon.directory() + "/pipe"),
            std::string::npos)
      << starts[1];
  daemon.stop();
  EXPECT_EQ(fake.lines("command quit").size(), 1u) << fake.text();
  EXPECT_TRUE(processGone(second));
}

TEST(MpsDaemon, OneThatDoesNotQuitIsKilled) {
  FakeMps fake(OnQuit::Ignore);
  MpsDaemonOptions options = optionsFor(fake);
  options.quitTimeoutMs = 300;
  MpsDaemon daemon(options);
  std::string why;
  ASSERT_TRUE(daemon.start(&why)) << why;
  pid_t pid = startedPid(fake.lines("start")[0]);
  auto begin = std::chrono::steady_clock::now();
  daemon.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(3));
  EXPECT_EQ(fake.lines("command quit").size(), 1u) << fake.text();
  EXPECT_TRUE(processGone(pid));
}

TEST(MpsDaemon, ADaemonThatEndsAtStartIsAnErrorQuotingIt) {
  FakeMps fake(OnQuit::End, /*failAtStart=*/true);
  MpsDaemon daemon(optionsFor(fake));
  std::string why;
  EXPECT_FALSE(daemon.start(&why));
  EXPECT_NE(why.find("ended at start (exit status 3)"), std::string::npos)
      << why;
  EXPECT_NE(why.find("fake: no GPU for MPS here"), std::string::npos) << why;
  // Nothing is left of it.
  size_t entries = 0;
  for (const auto &e : std::filesystem::directory_iterator(fake.dir))
    entries += e.path().filename().string().rfind("rc-mps.", 0) == 0;
  EXPECT_EQ(entries, 0u);
}

// The processes rc-server starts after GpuSharing::start (its workers)
// are MPS clients of its daemon; after stop() they are not.
TEST(GpuSharing, ProcessesStartedAfterwardsAreClientsOfTheDaemon) {
  FakeMps fake;
  GpuSharing sharing;
  std::string error;
  std::string parent = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "";
  setenv("TMPDIR", fake.dir.c_str(), 1);
  ASSERT_TRUE(sharing.start({GpuSharingChoice::Kind::OwnDaemon, ""},
                            GpuSharingMode::Auto, fake.control, &error))
      << error;
  EXPECT_TRUE(sharing.sharedThroughMps());
  auto starts = fake.lines("start");
  ASSERT_EQ(starts.size(), 1u);
  Child child({"-c", "echo worker pipe=$CUDA_MPS_PIPE_DIRECTORY "
                     "log=$CUDA_MPS_LOG_DIRECTORY"},
              "/bin/sh");
  EXPECT_EQ(child.wait(), 0);
  size_t at = starts[0].find("pipe=");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(child.text, "worker " + starts[0].substr(at) + "\n");
  sharing.stop();
  EXPECT_EQ(fake.lines("command quit").size(), 1u) << fake.text();
  EXPECT_EQ(std::getenv("CUDA_MPS_PIPE_DIRECTORY"), nullptr);
  if (parent.empty())
    unsetenv("TMPDIR");
  else
    setenv("TMPDIR", parent.c_str(), 1);
}

// Under auto a daemon that cannot start leaves the sessions time-slicing;
// under --gpu-sharing mps it stops the start.
TEST(GpuSharing, ADaemonThatCannotStartFailsOnlyWhenMpsIsAskedFor) {
  FakeMps fake(OnQuit::End, /*failAtStart=*/true);
  setenv("TMPDIR", fake.dir.c_str(), 1);
  std::string error;
  GpuSharing fallback;
  EXPECT_TRUE(fallback.start({GpuSharingChoice::Kind::OwnDaemon, ""},
                             GpuSharingMode::Auto, fake.control, &error));
  EXPECT_FALSE(fallback.sharedThroughMps());
  EXPECT_EQ(std::getenv("CUDA_MPS_PIPE_DIRECTORY"), nullptr);
  GpuSharing forced;
  EXPECT_FALSE(forced.start({GpuSharingChoice::Kind::OwnDaemon, ""},
                            GpuSharingMode::Mps, fake.control, &error));
  EXPECT_NE(error.find("--gpu-sharing mps: "), std::string::npos) << error;
  EXPECT_NE(error.find("fake: no GPU for MPS here"), std::string::npos)
      << error;
  unsetenv("TMPDIR");
}

GpuSharingInputs machineWithMps() {
  GpuSharingInputs in;
  in.mpsControl = "/usr/bin/nvidia-cuda-mps-control";
  in.gpuPresent = true;
  return in;
}

TEST(GpuSharing, AutoUsesMpsWhereTheMachineHasIt) {
  GpuSharingChoice choice;
  std::string error;
  GpuSharingInputs in = machineWithMps();
  ASSERT_TRUE(chooseGpuSharing(in, &choice, &error));
  EXPECT_EQ(choice.kind, GpuSharingChoice::Kind::OwnDaemon);
  // One tenant's workers share one daemon.
  in.isolationProcess = true;
  in.tenants = 1;
  ASSERT_TRUE(chooseGpuSharing(in, &choice, &error));
  EXPECT_EQ(choice.kind, GpuSharingChoice::Kind::OwnDaemon);
  // In one process sessions share their fate anyway: any tenants.
  in.isolationProcess = false;
  in.tenants = 3;
  ASSERT_TRUE(chooseGpuSharing(in, &choice, &error));
  EXPECT_EQ(choice.kind, GpuSharingChoice::Kind::OwnDaemon);
  // An operator's daemon is used as it is.
  in.operatorPipeDir = "/var/run/mps";
  ASSERT_TRUE(chooseGpuSharing(in, &choice, &error));
  EXPECT_EQ(choice.kind, GpuSharingChoice::Kind::OperatorDaemon);
}

TEST(GpuSharing, WithoutMpsSessionsTimesliceAndSayWhy) {
  struct Case {
    GpuSharingInputs in;
    std::string why;
  };
  std::vector<Case> cases;
  GpuSharingInputs in = machineWithMps();
  in.mode = GpuSharingMode::Timeslice;
  cases.push_back({in, "--gpu-sharing timeslice"});
  in = machineWithMps();
  in.testDevice = true;
  cases.push_back({in, "--test-device serves no GPU"});
  in = machineWithMps();
  in.gpuPresent = false;
  cases.push_back({in, "no NVIDIA GPU here"});
  in = machineWithMps();
  in.mpsControl = "";
  cases.push_back({in, "nvidia-cuda-mps-control is not on PATH"});
  in = machineWithMps();
  in.isolationProcess = true;
  in.tenants = 2;
  cases.push_back({in, "2 tenants' workers would share one MPS server"});
  for (const Case &c : cases) {
    GpuSharingChoice choice;
    std::string error;
    ASSERT_TRUE(chooseGpuSharing(c.in, &choice, &error)) << error;
    EXPECT_EQ(choice.kind, GpuSharingChoice::Kind::Timeslice) << c.why;
    EXPECT_NE(choice.why.find(c.why), std::string::npos) << choice.why;
    // Asked for by name, the same is an error naming the reason, except
    // tenants: the operator accepts that they share a fate.
    GpuSharingInputs forced = c.in;
    if (forced.mode == GpuSharingMode::Timeslice)
      continue;
    forced.mode = GpuSharingMode::Mps;
    bool ok = chooseGpuSharing(forced, &choice, &error);
    if (c.in.tenants > 1) {
      EXPECT_TRUE(ok);
      EXPECT_EQ(choice.kind, GpuSharingChoice::Kind::OwnDaemon);
    } else {
      EXPECT_FALSE(ok) << c.why;
      EXPECT_NE(error.find("--gpu-sharing mps: " + c.why), std::string::npos)
          << error;
    }
  }
}

TEST(GpuSharing, FindsTheControlProgramOnPath) {
  FakeMps fake;
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", ("/nonexistent:" + fake.dir + ":" + path).c_str(), 1);
  EXPECT_EQ(findOnPath("nvidia-cuda-mps-control"), fake.control);
  setenv("PATH", "/nonexistent", 1);
  EXPECT_EQ(findOnPath("nvidia-cuda-mps-control"), "");
  setenv("PATH", path.c_str(), 1);
}

// A tenant's quota becomes MPS bounds in its worker's environment.
TEST(GpuSharing, QuotasBecomeMpsLimits) {
  TenantQuota none;
  EXPECT_TRUE(mpsLimitsEnvironment(none, 2).empty());
  TenantQuota quota;
  quota.smPercent = 30;
  quota.deviceBytes = (3ull << 30) + 1; // rounded up to whole MiB
  auto env = mpsLimitsEnvironment(quota, 2);
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0], std::make_pair(std::string("CUDA_MPS_ACTIVE_THREAD_"
                                               "PERCENTAGE"),
                                   std::string("30")));
  EXPECT_EQ(env[1],
            std::make_pair(std::string("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"),
                           std::string("0=3073M,1=3073M")));
  // The priority and pinned host memory have no MPS bound.
  TenantQuota other;
  other.pinnedBytes = 1 << 30;
  other.streamPriority = kGreatestStreamPriority;
  EXPECT_TRUE(mpsLimitsEnvironment(other, 1).empty());
}

TEST(GpuSharing, CountsTheVisibleGpus) {
  const char *was = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string saved = was ? was : "";
  setenv("CUDA_VISIBLE_DEVICES", "0,2,3", 1);
  EXPECT_EQ(visibleGpuCount(), 3);
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_EQ(visibleGpuCount(), 0);
  if (was)
    setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
  else
    unsetenv("CUDA_VISIBLE_DEVICES");
}

// The rc-server binary: the mode line at start, and the flag's errors.
TEST(GpuSharingCli, SaysWhichModeIsInEffect) {
  Child off({"--listen", "tcp://127.0.0.1:1", "--manifest", "/nonexistent.rcm",
             "--test-device"});
  EXPECT_EQ(off.wait(), 1);
  EXPECT_NE(off.text.find("MPS not available: --test-device serves no GPU; "
                          "sessions time-slice"),
            std::string::npos)
      << off.text;
  Child forced({"--listen", "tcp://127.0.0.1:1", "--manifest",
                "/nonexistent.rcm", "--test-device", "--gpu-sharing", "mps"});
  EXPECT_EQ(forced.wait(), 2);
  EXPECT_NE(forced.text.find("--gpu-sharing mps: --test-device serves no GPU"),
            std::string::npos)
      << forced.text;
  Child bad({"--gpu-sharing", "spatial"});
  EXPECT_EQ(bad.wait(), 2);
  EXPECT_NE(bad.text.find("--gpu-sharing must be auto, mps or timeslice"),
            std::string::npos)
      << bad.text;
}

} // namespace
