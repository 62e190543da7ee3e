// Whether rc-server seals a client's connection after authentication, and
// the sealing itself (docs/security.md, "Encryption in transit"). A client
// that proved a key over tcp from off this host gets its connection
// encrypted and authenticated from the server's HelloReply on, with keys
// derived from that handshake; shm, loopback tcp and servers without keys
// stay clear, and so does everything under rc-server --insecure-transport.
#ifndef RC_SERVER_TRANSPORT_SEALING_H
#define RC_SERVER_TRANSPORT_SEALING_H

#include "rc/auth/key_file.h"
#include "rc/auth/proof.h"
#include "rc/transport.h"

#include <string>

namespace rc::server {

// rc-server --insecure-transport: no connection of this process is sealed
// (set once at start-up, before the first client).
void setInsecureTransport(bool insecure);
bool insecureTransport();

// What the AuthChallenge announces: seal this connection once its client
// proved its key.
bool sealWanted(const transport::Connection &conn);

// Derives this handshake's keys from the proven key and installs them (the
// server sends, then, only sealed records and takes no clear ones); false
// with *why when that fails, and the client must be refused.
bool sealConnection(transport::Connection &conn, const auth::Key &key,
                    const auth::Transcript &transcript, std::string *why);

} // namespace rc::server

#endif
