// IPv4 helpers for tcp:// addresses: name resolution and choosing the local
// interface address that reaches a given server (so that the address we
// advertise to the server is one it can connect back to).
#ifndef RC_TRANSPORT_INET_H
#define RC_TRANSPORT_INET_H

#include <netinet/in.h>

#include <string>
#include <vector>

namespace rc::transport::detail {

bool resolveIpv4(const std::string &host, const std::string &port,
                 sockaddr_in *out, std::string *error);
// Local address the kernel would use to reach `to` (no packet is sent).
bool localAddressFor(const sockaddr_in &to, std::string *ip,
                     std::string *error);
// Plain TCP connect to the listener's port, to turn "nothing there" into a
// prompt "connection refused" (libfabric's rxm keeps retrying instead).
// The probe connection is closed at once; the listener's provider drops it.
// *refused (if given): nothing listens there now (worth trying again).
bool probeTcp(const sockaddr_in &to, int timeoutMs, std::string *error,
              bool *refused = nullptr);
std::string ipText(const sockaddr_in &a);
std::vector<uint8_t> rawAddress(const sockaddr_in &a);
// The host part of a fabric address's text: "fi_sockaddr_in://10.1.2.3:41234"
// -> "10.1.2.3".
std::string hostOfAddressText(const std::string &address);

} // namespace rc::transport::detail

#endif
