#include "rc/server/session_recording.h"
#include "rc/server/log.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::server {

std::unique_ptr<SessionRecorder> SessionRecorder::into(const std::string &dir,
                                                       uint64_t id) {
  if (dir.empty())
    return nullptr;
  // Session ids repeat where one process makes several servers (tests):
  // a later session of the same id gets a numbered name of its own.
  std::string base =
      dir + "/session-" + std::to_string(getpid()) + "-" + std::to_string(id);
  std::string path = base + ".rcrec";
  // Recorded messages may carry credentials and data: owner only.
  int fd = -1;
  for (int n = 2; n < 1000; ++n) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST)
      break;
    path = base + "-" + std::to_string(n) + ".rcrec";
  }
  std::FILE *file = fd >= 0 ? fdopen(fd, "wb") : nullptr;
  if (!file) {
    logError("RC_DEV_SERVER_RECORD_DIR: cannot create " + path + ": " +
             std::strerror(errno) + "; session " + std::to_string(id) +
             " is not recorded");
    if (fd >= 0)
      ::close(fd);
    return nullptr;
  }
  return std::make_unique<SessionRecorder>(dir, file);
}

SessionRecorder::SessionRecorder(std::string dir, std::FILE *file)
    : dir_(std::move(dir)), file_(file) {}

SessionRecorder::~SessionRecorder() { std::fclose(file_); }

void SessionRecorder::message(const uint8_t *data, size_t size) {
  uint8_t length[4];
  uint32_t n = size > UINT32_MAX ? UINT32_MAX : uint32_t(size);
  for (int i = 0; i < 4; ++i)
    length[i] = uint8_t(n >> (8 * i));
  std::fwrite(length, 1, 4, file_);
  std::fwrite(data, 1, n, file_);
  std::fflush(file_);
}

void SessionRecorder::manifest(const LoadedManifest &m) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.rcm", (unsigned long long)m.hash);
  std::string path = dir_ + "/" + name;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0)
    return;
  // Sessions of this and other servers may copy the same manifest at once:
  // each writes a file of its own and renames it into place.
  static std::atomic<uint64_t> serial{0};
  std::string tmp = path + "." + std::to_string(getpid()) + "." +
                    std::to_string(serial++) + ".tmp";
  std::string error;
  if (!writeFile(tmp, m.data(), m.size(), &error) ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    logError("RC_DEV_SERVER_RECORD_DIR: cannot keep manifest " + path + ": " +
             (error.empty() ? std::strerror(errno) : error));
    std::remove(tmp.c_str());
  }
}

void forEachRecordedMessage(
    const uint8_t *data, size_t size,
    const std::function<bool(const uint8_t *, size_t)> &take) {
  size_t at = 0;
  while (size - at >= 4) {
    uint64_t n = 0;
    for (int i = 0; i < 4; ++i)
      n |= uint64_t(data[at + i]) << (8 * i);
    at += 4;
    if (n > size - at || !take(data + at, size_t(n)))
      return;
    at += size_t(n);
  }
}

} // namespace rc::server
