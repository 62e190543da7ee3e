// Who may reach a listen address decides whether rc-server may serve it
// without authentication (docs/security.md): shm:// and loopback tcp only
// reach this machine, any other tcp address may reach the network.
#ifndef RC_SERVER_LISTEN_POLICY_H
#define RC_SERVER_LISTEN_POLICY_H

#include <string>

namespace rc::server {

// True for shm://NAME and for tcp://HOST:PORT whose HOST resolves only to
// 127.0.0.0/8; false for every other address, unresolvable ones included.
bool reachesOnlyThisHost(const std::string &url);

// Empty when rc-server may listen on `url`; else why not, naming
// --auth-key-file and --insecure.
std::string openListenRefusal(const std::string &url, bool haveKeyFile,
                              bool insecure);

} // namespace rc::server

#endif
