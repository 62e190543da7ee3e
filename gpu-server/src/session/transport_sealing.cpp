#include "session/transport_sealing.h"

#include "rc/auth/session_keys.h"

#include <atomic>

namespace rc::server {

namespace {
std::atomic<bool> gInsecureTransport{false};

transport::TrafficKey trafficKey(const auth::DirectionKey &k) {
  transport::TrafficKey t;
  t.key = k.key;
  t.iv = k.iv;
  return t;
}
} // namespace

void setInsecureTransport(bool insecure) { gInsecureTransport = insecure; }
bool insecureTransport() { return gInsecureTransport; }

bool sealWanted(const transport::Connection &conn) {
  return !gInsecureTransport && conn.offLoopback();
}

bool sealConnection(transport::Connection &conn, const auth::Key &key,
                    const auth::Transcript &transcript, std::string *why) {
  auth::SessionKeys keys;
  if (!auth::deriveSessionKeys(key, transcript, &keys)) {
    *why = "the server could not derive the connection's keys; try again";
    return false;
  }
  transport::SealKeys seal{trafficKey(keys.serverToClient),
                           trafficKey(keys.clientToServer)};
  std::string error;
  if (!conn.seal(seal, /*oneClearMessage=*/false, &error)) {
    *why = "the server could not seal the connection: " + error;
    return false;
  }
  return true;
}

} // namespace rc::server
