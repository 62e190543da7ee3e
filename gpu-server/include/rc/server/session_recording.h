// Session recordings: every message one session received, in order, each a
// little-endian u32 length followed by the message's bytes. With
// RC_DEV_SERVER_RECORD_DIR set, every session writes one to that directory
// (session-<server pid>-<session id>.rcrec), plus a copy of each manifest
// its Hello announced (<16 hex digits of the hash>.rcm). The session fuzzer
// (test/fuzz) reads the same format, so recorded traffic of any client
// (the tests, the samples, llama.cpp) seeds it as it is.
#ifndef RC_SERVER_SESSION_RECORDING_H
#define RC_SERVER_SESSION_RECORDING_H

#include "rc/manifest_file.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

namespace rc::server {

class SessionRecorder {
public:
  // A recorder for session `id` into folder `dir` (SessionSettings::
  // recordDir, RC_DEV_SERVER_RECORD_DIR); null when `dir` is empty, or when the
  // file cannot be created (an error line says why).
  static std::unique_ptr<SessionRecorder> into(const std::string &dir,
                                               uint64_t id);
  SessionRecorder(std::string dir, std::FILE *file);
  ~SessionRecorder();
  SessionRecorder(const SessionRecorder &) = delete;
  SessionRecorder &operator=(const SessionRecorder &) = delete;

  // Appends one received message; flushed at once, so a message that
  // brings the server down is on disk before it is handled.
  void message(const uint8_t *data, size_t size);
  // Keeps a copy of a manifest the session announced, once per directory.
  void manifest(const LoadedManifest &m);

private:
  std::string dir_;
  std::FILE *file_;
};

// Calls `take` with each whole message of a recording, in order, until it
// returns false. A truncated last record is ignored.
void forEachRecordedMessage(
    const uint8_t *data, size_t size,
    const std::function<bool(const uint8_t *, size_t)> &take);

} // namespace rc::server

#endif
