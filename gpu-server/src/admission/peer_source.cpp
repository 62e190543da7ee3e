#include "admission/peer_source.h"

namespace rc::server {

std::string peerSource(const transport::Connection &conn) {
  uint32_t uid = 0;
  if (conn.peerUid(&uid))
    return "uid " + std::to_string(uid) + " on this host";
  return conn.peerHost();
}

std::string peerSource(const transport::AdmissionClaim &claim) {
  if (claim.hasPeerUid)
    return "uid " + std::to_string(claim.peerUid) + " on this host";
  return claim.peerHost;
}

std::string ticketHolder(bool keyed, const std::string &keyId,
                         const std::string &source) {
  return keyed ? "key '" + keyId + "'" : source;
}

} // namespace rc::server
