#include "rc/server/service_notify.h"
#include "rc/server/log.h"

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace rc::server {

bool notifyServiceManager(const std::string &state, std::string *error) {
  const char *name = std::getenv("NOTIFY_SOCKET");
  if (!name || !*name)
    return true;
  std::string path = name;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if ((path[0] != '/' && path[0] != '@') ||
      path.size() >= sizeof(address.sun_path)) {
    *error = "NOTIFY_SOCKET=" + path +
             " is neither an absolute path nor an abstract name (@NAME)";
    return false;
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  if (path[0] == '@')
    address.sun_path[0] = '\0'; // abstract: no file, the name after a NUL
  socklen_t length = socklen_t(offsetof(sockaddr_un, sun_path) + path.size());
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  ssize_t sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                        reinterpret_cast<const sockaddr *>(&address), length);
  int sendErrno = errno;
  close(fd);
  if (sent != ssize_t(state.size())) {
    *error = "cannot notify " + path + ": " +
             (sent < 0 ? std::strerror(sendErrno) : "short write");
    return false;
  }
  return true;
}

void announceReady(const std::string &address) {
  std::string error;
  if (!notifyServiceManager("READY=1\nSTATUS=listening on " + address, &error))
    logError("readiness not sent to the service manager: " + error);
}

void announceStopping() {
  std::string error;
  if (!notifyServiceManager("STOPPING=1", &error))
    logError("stop not sent to the service manager: " + error);
}

} // namespace rc::server
