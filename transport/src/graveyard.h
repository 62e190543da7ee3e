// Deferred closing of shm endpoints whose peer lives in the same process.
// libfabric 1.17's shm provider reaches a peer endpoint of the same process
// through that endpoint's own mapping of its region instead of mapping it
// again; once the peer endpoint is closed, that mapping is gone and the
// survivor crashes in its next progress call (seen as SIGSEGV in
// fi_cq_read). So an in-process shm endpoint is parked here until its peer
// is parked too, and only then are both closed. Cross-process peers (the
// real use: runtime and rc-server) do not need this.
#ifndef RC_TRANSPORT_GRAVEYARD_H
#define RC_TRANSPORT_GRAVEYARD_H

#include "endpoint.h"

#include <memory>
#include <vector>

namespace rc::transport::detail {

void parkUntilPeerCloses(std::unique_ptr<Endpoint> ep,
                         const std::vector<uint8_t> &peerAddress);

} // namespace rc::transport::detail

namespace rc::transport::detail {
// For a client endpoint whose handshake with a listener of the same process
// failed after the request went out: the listener may still insert its
// address, so the endpoint stays open until the process exits.
void parkForever(std::unique_ptr<Endpoint> ep);
} // namespace rc::transport::detail

#endif
