// rc-server's state for a service manager that started it (systemd with
// Type=notify, deploy/systemd/rc-server.service): the sd_notify(3)
// protocol, one datagram to the AF_UNIX socket named by $NOTIFY_SOCKET,
// written here without libsystemd.
#ifndef RC_SERVER_SERVICE_NOTIFY_H
#define RC_SERVER_SERVICE_NOTIFY_H

#include <string>

namespace rc::server {

// Sends `state` (newline-separated assignments: "READY=1", "STOPPING=1",
// "STATUS=...") to the socket named by $NOTIFY_SOCKET: a path, or an
// abstract name written with a leading '@'. Without NOTIFY_SOCKET there is
// no service manager to tell: true, nothing sent. False with the reason in
// *error when the socket is named but cannot be reached.
bool notifyServiceManager(const std::string &state, std::string *error);

// The service manager learns that rc-server serves at `address` (every
// manifest loaded, the listener open) and, on a stop, that it drains: a
// failed notification is logged, and rc-server serves on (systemd then
// stops a unit that never became ready, naming the timeout).
void announceReady(const std::string &address);
void announceStopping();

} // namespace rc::server

#endif
