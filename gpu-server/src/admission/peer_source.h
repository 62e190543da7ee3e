// Where a connection comes from, as far as someone other than the peer
// vouches for it: over shm the user id the kernel recorded for its
// handshake socket ("uid 1000"), over tcp the peer's IP address (the
// address this side replies to, so a peer that gives another's loses its
// own connection). rc-server counts failed authentications by it and,
// without keys, binds worker tickets and caps reservations by it
// (docs/security.md). Every local user reaches loopback tcp from the same
// address: only keys, or shm, tell them apart.
#ifndef RC_SERVER_PEER_SOURCE_H
#define RC_SERVER_PEER_SOURCE_H

#include "rc/transport.h"

#include <string>

namespace rc::server {

std::string peerSource(const transport::Connection &conn);
// The same for a client that asks for admission (no connection yet).
std::string peerSource(const transport::AdmissionClaim &claim);

// Who may redeem a worker's ticket (session_ticket.h): the key the client
// proved, "key 'ID'"; without keys (`keyed` false) its source.
std::string ticketHolder(bool keyed, const std::string &keyId,
                         const std::string &source);

} // namespace rc::server

#endif
