#include "rc/server/settings.h"

namespace rc::server {

bool ServerSettings::fromEnv(ServerSettings *out, std::string *error) {
  EnvReader env;
  ServerSettings s;
  s.limits.read(env);
  const uint64_t kib = 1 << 10, mib = 1 << 20;
  s.session.uploadRingBytes = env.count(
      "RC_SERVER_UPLOAD_RING_MIB", s.session.uploadRingBytes, 0, 4096, mib);
  s.session.deferSyncs = env.onOff("RC_SERVER_DEFER_SYNC", true);
  s.session.syncFences = env.onOff("RC_SERVER_SYNC_FENCE", true);
  s.session.recordDir = env.text("RC_SERVER_RECORD_DIR");
  s.cuda.packUploads = env.onOff("RC_SERVER_PACK_UPLOADS", true);
  s.cuda.readbackPieceBytes =
      env.count("RC_SERVER_READBACK_PIECE_KB", 0, 0, 1 << 20, kib);
  s.cuda.gpuWait =
      env.choice("RC_SERVER_GPU_WAIT", "", {"spin", "yield", "block"});
  s.cuda.cublasLibrary = env.text("RC_CUBLAS_LIBRARY");
  s.cuda.multipath = env.onOff("RC_SERVER_MULTIPATH", false);
  s.dumpable = env.onOff("RC_SERVER_DUMPABLE", false);
  s.drainMs = env.count("RC_SERVER_DRAIN_MS", s.drainMs, 0, 86400000);
  if (!env.ok()) {
    *error = env.error();
    return false;
  }
  *out = s;
  return true;
}

} // namespace rc::server
