// libFuzzer harness: rc-server's session, from received bytes to replies,
// on the host test device. One input is one session: a session recording
// (rc/server/session_recording.h: u32 length + message, repeated), each
// message handed to Session::handle in order, as the server's session
// thread does. Recordings of real clients (RC_DEV_SERVER_RECORD_DIR) seed it,
// so inputs start from a valid Hello and reach the decode, verify,
// validate and execute path of every command past it.
//
// The manifests are the files in RC_FUZZ_MANIFEST_DIR (test/fuzz/manifests):
// a file named <16 hex digits>.rcm answers a Hello naming that hash (a copy
// without device code stands in for a large manifest); any other .rcm
// answers to the hash of its bytes.
#include "rc/server/host_backend.h"
#include "rc/server/log.h"
#include "rc/server/registry.h"
#include "rc/server/session.h"
#include "rc/server/session_recording.h"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace rc::server;

// Two devices, so device selection and peer copies are reachable; little
// memory, so copies stay fast (each input may move it all a few times).
constexpr int kDevices = 2;
constexpr uint64_t kDeviceMemory = 32ULL << 20;

// The hash a manifest file stands for: from its name when that is 16 hex
// digits, else none (its bytes' hash applies).
bool hashFromName(const std::string &name, uint64_t *hash) {
  if (name.size() != 20 || name.compare(16, 4, ".rcm") != 0)
    return false;
  char *end = nullptr;
  *hash = std::strtoull(name.substr(0, 16).c_str(), &end, 16);
  return end && *end == '\0';
}

struct World {
  Registry registry;
  std::unique_ptr<HostBackend> backend;
  std::unique_ptr<SessionEnv> env;
};

World *makeWorld() {
  setLogLevel(LogLevel::Quiet);
  auto *w = new World;
  const char *dir = std::getenv("RC_FUZZ_MANIFEST_DIR");
  std::string manifests = dir && *dir ? dir : RC_FUZZ_MANIFEST_DIR;
  DIR *d = opendir(manifests.c_str());
  if (!d) {
    std::fprintf(stderr, "session fuzzer: no manifest directory %s\n",
                 manifests.c_str());
    std::abort();
  }
  std::string error;
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".rcm") != 0)
      continue;
    rc::LoadedManifest m;
    bool ok = rc::loadManifest(manifests + "/" + name, m, &error);
    if (ok) {
      hashFromName(name, &m.hash);
      ok = w->registry.add(std::move(m), &error);
    }
    if (!ok) {
      std::fprintf(stderr, "session fuzzer: %s\n", error.c_str());
      std::abort();
    }
  }
  closedir(d);
  w->backend = std::make_unique<HostBackend>(kDevices, kDeviceMemory);
  if (!w->backend->prepare(w->registry, &error))
    std::abort();
  w->env = std::make_unique<SessionEnv>(SessionEnv{w->registry, *w->backend});
  return w;
}

World &world() {
  static World *w = makeWorld();
  return *w;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Session session(*world().env, 1);
  std::vector<uint8_t> message; // 16-byte aligned, as the transport's are
  std::vector<std::vector<uint8_t>> replies;
  forEachRecordedMessage(data, size, [&](const uint8_t *m, size_t n) {
    message.assign(m, m + n);
    replies.clear();
    return session.handle(message.data(), message.size(), replies) ==
           Session::Next::Continue;
  });
  return 0;
}
