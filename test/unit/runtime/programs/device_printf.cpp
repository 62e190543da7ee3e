// Device printf as an application sees it, with stdout whatever the test
// made it (a pipe, a regular file): rc-server runs in this process on the
// host test device, whose hooks do what the CUDA driver does with kernels'
// printf output (queued at launch, written to stdout on the synchronizing
// thread at the next device synchronization, which the session captures).
// The runtime is wired as in an application: its exit handler says
// Goodbye. Scenarios (argv[1]):
//   sync  host line, launch, host line, cudaDeviceSynchronize, host line
//   exit  host line, launch, host line, return from main without a sync
//   many  40 launches of 3 lines each, synchronized every 8, host lines
//         between, then one last launch left to the exit
// Each prints only through stdio; the test compares the whole stdout.
#include "core/runtime.h"
#include "rc/server/host_backend.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>

using namespace rc;
using namespace rc::server;

namespace {

rt::Runtime *gRuntime = nullptr;

void sayGoodbyeAtExit() {
  rt::TrafficStats stats;
  if (gRuntime)
    gRuntime->shutdownAtExit(&stats);
}

// What kernels "printed" and the driver has not written yet.
std::mutex gPendingMu;
std::deque<std::string> gPending;

void driverLikeHooks(HostBackend &backend) {
  backend.onLaunch([](const LaunchRecord &r) {
    std::lock_guard<std::mutex> lock(gPendingMu);
    for (uint32_t line = 0; line < r.config.block[0] / 32; ++line)
      gPending.push_back("device: grid " + std::to_string(r.config.grid[0]) +
                         " line " + std::to_string(line) + "\n");
  });
  backend.onDeviceSync([](int) {
    std::lock_guard<std::mutex> lock(gPendingMu);
    for (const std::string &piece : gPending)
      std::fprintf(stdout, "%s", piece.c_str()); // vfprintf, as the driver
    gPending.clear();
  });
}

} // namespace

int main(int argc, char **argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  setLogLevel(LogLevel::Quiet);
  test::TestManifest m = test::writeTestManifest();
  // Never destroyed: it must still serve the Goodbye of the exit handler.
  auto *core = new ServerCore;
  if (!test::startOnTestDevice(*core, m.path)) {
    std::fprintf(stderr, "FAIL: no in-process rc-server\n");
    return 2;
  }
  driverLikeHooks(static_cast<HostBackend &>(core->backend()));
  auto connect = [core](int, std::string *) {
    auto ends = test::memPair();
    core->serve(std::move(ends.second));
    return std::unique_ptr<transport::Connection>(std::move(ends.first));
  };
  auto loader = [path = m.path](rt::KernelIndex &index) {
    auto lm = std::make_unique<LoadedManifest>();
    std::string error;
    if (loadManifest(path, *lm, &error))
      index.add(std::move(lm));
  };
  rt::Options opts;
  opts.flusherThread = false;
  gRuntime = new rt::Runtime(connect, loader, opts);
  std::atexit(sayGoodbyeAtExit); // as the runtime's own, at its first call
  if (gRuntime->ensureConnected() != cudaSuccess) {
    std::fprintf(stderr, "FAIL: cannot connect\n");
    return 2;
  }
  void *p = nullptr;
  gRuntime->malloc(&p, 256);
  int n = 64;
  void *args[] = {&p, &n};
  auto launch = [&](unsigned grid, unsigned lines) {
    if (gRuntime->kernels().launch(m.scaleId, dim3(grid), dim3(32 * lines),
                                   args, 0, nullptr, false) != cudaSuccess)
      std::fprintf(stderr, "FAIL: launch\n");
  };
  auto sync = [&] {
    if (gRuntime->deviceSynchronize() != cudaSuccess)
      std::fprintf(stderr, "FAIL: cudaDeviceSynchronize\n");
  };

  if (scenario == "sync") {
    std::printf("host: before\n");
    launch(1, 2);
    std::printf("host: after the launch\n");
    sync();
    std::printf("host: after the sync\n");
  } else if (scenario == "exit") {
    std::printf("host: before\n");
    launch(7, 2);
    std::printf("host: after the launch, returning\n");
  } else if (scenario == "many") {
    for (unsigned i = 1; i <= 40; ++i) {
      launch(i, 3);
      std::printf("host: launched %u\n", i);
      if (i % 8 == 0)
        sync();
    }
    launch(99, 1);
  } else {
    std::fprintf(stderr, "usage: %s sync|exit|many\n", argv[0]);
    return 2;
  }
  return 0;
}
