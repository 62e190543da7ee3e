// Parsing of transport addresses (tcp://HOST:PORT, shm://NAME) into the
// provider and the pieces libfabric needs.
#ifndef RC_TRANSPORT_URL_H
#define RC_TRANSPORT_URL_H

#include <string>

namespace rc::transport::detail {

enum class Provider { Tcp, Shm };

struct Url {
  Provider provider = Provider::Tcp;
  std::string host;    // tcp: host name or IPv4 literal
  std::string port;    // tcp: decimal port
  std::string shmName; // shm: NAME as given
  std::string text;    // the URL as given, for messages
};

// Returns false and a sentence in *error for anything that is not a
// well-formed tcp:// or shm:// address.
bool parseUrl(const std::string &text, Url *url, std::string *error);

// libfabric provider string for a provider ("tcp;ofi_rxm" or "shm").
const char *providerName(Provider p);

} // namespace rc::transport::detail

#endif
