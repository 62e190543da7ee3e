#include "url.h"
#include "rc/transport.h"

#include <cctype>
#include <cstdlib>

namespace rc::transport::detail {

const char *providerName(Provider p) {
  return p == Provider::Tcp ? "tcp;ofi_rxm" : "shm";
}

static bool fail(std::string *error, const std::string &text,
                 const std::string &why) {
  if (error)
    *error = "bad transport address '" + text + "': " + why +
             " (expected tcp://HOST:PORT or shm://NAME)";
  return false;
}

bool parseUrl(const std::string &text, Url *url, std::string *error) {
  size_t sep = text.find("://");
  if (sep == std::string::npos)
    return fail(error, text, "missing scheme");
  std::string scheme = text.substr(0, sep);
  std::string rest = text.substr(sep + 3);
  url->text = text;
  if (scheme == "tcp") {
    url->provider = Provider::Tcp;
    size_t colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return fail(error, text, "tcp needs HOST:PORT");
    url->host = rest.substr(0, colon);
    url->port = rest.substr(colon + 1);
    // IPv6 literals would need brackets; only IPv4 and host names for now.
    if (url->host.find(':') != std::string::npos ||
        url->host.find('/') != std::string::npos)
      return fail(error, text, "host must be an IPv4 address or a host name");
    if (url->port.empty() || url->port.size() > 5)
      return fail(error, text, "port must be a number 0..65535");
    for (char c : url->port)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return fail(error, text, "port must be a number 0..65535");
    if (std::atoi(url->port.c_str()) > 65535)
      return fail(error, text, "port must be a number 0..65535");
    return true;
  }
  if (scheme == "shm") {
    url->provider = Provider::Shm;
    // The handshake socket's name must fit in sun_path (108 bytes).
    if (rest.empty() || rest.size() > 80)
      return fail(error, text, "shm name must have 1..80 characters");
    // The name becomes a file in /dev/shm: keep it to a safe alphabet.
    for (char c : rest)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' &&
          c != '-' && c != '.')
        return fail(error, text,
                    "shm name may hold only letters, digits, '_', '-', '.'");
    url->shmName = rest;
    return true;
  }
  return fail(error, text, "unknown scheme '" + scheme + "'");
}

} // namespace rc::transport::detail

namespace rc::transport {

std::string redirectUrl(const std::string &redirect, const std::string &reached,
                        std::string *error) {
  detail::Url from, to;
  if (!detail::parseUrl(reached, &from, error))
    return "";
  std::string url = redirect;
  if (from.provider == detail::Provider::Tcp &&
      redirect.rfind("tcp://:", 0) == 0)
    url = "tcp://" + from.host + redirect.substr(6);
  if (!detail::parseUrl(url, &to, error))
    return "";
  if (to.provider != from.provider) {
    *error = "the server at " + reached + " redirected to " + redirect +
             ", another kind of address";
    return "";
  }
  return url;
}

} // namespace rc::transport
