#include "rc/server/listen_policy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace rc::server {

bool reachesOnlyThisHost(const std::string &url) {
  if (url.rfind("shm://", 0) == 0)
    return true;
  if (url.rfind("tcp://", 0) != 0)
    return false;
  std::string rest = url.substr(6);
  size_t colon = rest.rfind(':');
  std::string host = rest.substr(0, colon == std::string::npos ? 0 : colon);
  if (host.empty())
    return false;
  addrinfo hints{};
  hints.ai_family = AF_INET; // the transport listens on IPv4 only
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0)
    return false;
  bool loopbackOnly = res != nullptr;
  for (addrinfo *a = res; a; a = a->ai_next) {
    uint32_t ip =
        ntohl(reinterpret_cast<sockaddr_in *>(a->ai_addr)->sin_addr.s_addr);
    loopbackOnly = loopbackOnly && (ip >> 24) == 127;
  }
  freeaddrinfo(res);
  return loopbackOnly;
}

std::string openListenRefusal(const std::string &url, bool haveKeyFile,
                              bool insecure) {
  if (haveKeyFile || insecure || reachesOnlyThisHost(url))
    return "";
  return "refusing to listen on " + url +
         " without authentication: it is not a loopback address, so anyone "
         "who can reach it could use the GPUs and read what clients send. "
         "Make a key with 'rc-server keygen FILE' and pass --auth-key-file "
         "FILE (clients set RC_AUTH_KEY_FILE to a copy), or pass --insecure "
         "to serve it open anyway";
}

} // namespace rc::server
