#include "rc/server/settings.h"

namespace rc::server {

bool ServerSettings::fromEnv(ServerSettings *out, std::string *error) {
  EnvReader env;
  ServerSettings s;
  s.limits.read(env);
  const uint64_t mib = 1 << 20;
  s.session.uploadRingBytes = env.count(
      "RC_SERVER_UPLOAD_RING_MIB", s.session.uploadRingBytes, 0, 4096, mib);
  s.session.recordDir = env.text("RC_DEV_SERVER_RECORD_DIR");
  s.cuda.packUploads = env.onOff("RC_DEV_SERVER_PACK_UPLOADS", true);
  s.cuda.gpuWait =
      env.choice("RC_DEV_SERVER_GPU_WAIT", "", {"spin", "yield", "block"});
  s.cuda.cublasLibrary = env.text("RC_CUBLAS_LIBRARY");
  s.cuda.multipath = env.onOff("RC_SERVER_MULTIPATH", false);
  s.dumpable = env.onOff("RC_DEV_SERVER_DUMPABLE", false);
  s.drainMs = env.count("RC_SERVER_DRAIN_MS", s.drainMs, 0, 86400000);
  if (!env.ok()) {
    *error = env.error();
    return false;
  }
  *out = s;
  return true;
}

} // namespace rc::server
