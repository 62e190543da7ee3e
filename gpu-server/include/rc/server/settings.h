// Everything rc-server reads from its environment (docs/environment.md),
// read once at start by rc::EnvReader's rule into one object that is
// handed down: the bounds, how sessions behave, the CUDA backend's knobs.
// Tests set fields instead of variables.
#ifndef RC_SERVER_SETTINGS_H
#define RC_SERVER_SETTINGS_H

#include "rc/server/limits.h"

#include <cstdint>
#include <string>

namespace rc::server {

// How each session behaves.
struct SessionSettings {
  // The largest upload ring a session gets; 0: none, large uploads travel
  // inline (RC_SERVER_UPLOAD_RING_MIB).
  uint64_t uploadRingBytes = 32ull << 20;
  // Each session's messages are recorded into this folder for the fuzz
  // corpus; empty: none (RC_DEV_SERVER_RECORD_DIR; docs/fuzzing.md).
  std::string recordDir;
};

// The CUDA backend's knobs (docs/environment.md).
struct CudaSettings {
  bool packUploads = true;   // RC_DEV_SERVER_PACK_UPLOADS
  std::string gpuWait;       // RC_DEV_SERVER_GPU_WAIT; empty: CUDA's auto
  std::string cublasLibrary; // RC_CUBLAS_LIBRARY; empty: the usual names
  bool multipath = false;    // RC_SERVER_MULTIPATH (copy_relay.h)
};

struct ServerSettings {
  ServerLimits limits;
  SessionSettings session;
  CudaSettings cuda;
  bool dumpable = false; // RC_DEV_SERVER_DUMPABLE
  // On SIGTERM, live sessions get this long to finish while no new one is
  // accepted (RC_SERVER_DRAIN_MS; 0: stop at once, as on SIGINT).
  uint64_t drainMs = 30000;

  // The defaults with every set variable applied; false with *error naming
  // each refused value (main.cpp adds the transport's RC_TRANSPORT_*).
  static bool fromEnv(ServerSettings *out, std::string *error);
};

} // namespace rc::server

#endif
