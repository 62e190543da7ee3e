#include "api/global.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace rc::rt {

namespace {
std::atomic<Runtime *> current{nullptr};
std::mutex createMu;

void shutdownAtExit() {
  TrafficStats stats;
  if (Runtime *rt = current.load(); rt && rt->shutdownAtExit(&stats))
    stats.reportTo(rt->options().stats.c_str());
}
} // namespace

Runtime &runtime() {
  Runtime *rt = current.load(std::memory_order_acquire);
  if (rt)
    return *rt;
  std::lock_guard<std::mutex> lock(createMu);
  if (!(rt = current.load())) {
    Options opts = Options::fromEnv();
    auto manifests = [extra = opts.manifests](KernelIndex &index) {
      loadDiscoveredManifests(index, extra);
    };
    rt = new Runtime(urlConnector(opts.serverUrl, opts.authKeyFile), manifests,
                     opts);
    current.store(rt, std::memory_order_release);
    std::atexit(shutdownAtExit);
  }
  return *rt;
}

void installRuntimeForTest(std::unique_ptr<Runtime> rt) {
  std::lock_guard<std::mutex> lock(createMu);
  Runtime *old = current.exchange(rt.release());
  if (old) {
    old->shutdown();
    delete old;
  }
  lastError() = cudaSuccess;
}

cudaError_t &lastError() {
  thread_local cudaError_t last = cudaSuccess;
  return last;
}

} // namespace rc::rt
