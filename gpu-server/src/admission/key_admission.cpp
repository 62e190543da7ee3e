#include "admission/key_admission.h"

#include "admission/peer_source.h"
#include "rc/auth/proof.h"
#include "rc/server/log.h"

namespace rc::server {

namespace {

bool checkClaim(const std::vector<auth::Key> &keys, AuthThrottle *throttle,
                const transport::AdmissionClaim &claim, std::string *why) {
  const std::string source = peerSource(claim);
  if (!auth::validKeyId(claim.keyId)) {
    // It would be printed in logs and errors: keep it to a safe alphabet.
    *why = "the key id is not 1 to 64 characters of A-Z a-z 0-9 . _ @ -";
    logDebug("admission from " + source + " refused: " + *why);
    return false;
  }
  const auth::Key *key = nullptr;
  for (const auth::Key &k : keys)
    if (k.id == claim.keyId)
      key = &k;
  // An unknown key id fails exactly like a wrong proof, after the same
  // work, so neither answers nor their timing tell which ids exist.
  static const auth::Key kNoKey{"", std::vector<uint8_t>(32, 0)};
  auth::Proof expected;
  bool right =
      auth::admissionProof(key ? *key : kNoKey, claim.transcript, &expected) &&
      key && auth::sameProof(claim.proof.data(), claim.proof.size(), expected);
  if (right)
    return true; // whatever the back-off says: it counts others' failures
  uint64_t waitMs = 0;
  if (throttle) {
    const uint64_t now = throttle->nowMs();
    waitMs = throttle->waitMs(source, claim.keyId, now);
    throttle->recordFailure(source, claim.keyId, now);
  }
  *why = "authentication failed: the server holds no key '" + claim.keyId +
         "' or the client's proof does not match it (RC_AUTH_KEY_FILE must "
         "hold a key of rc-server's --auth-key-file)";
  if (waitMs)
    *why += "; more failed lately from " + source + " or naming key '" +
            claim.keyId + "': retry in " + std::to_string(waitMs) + " ms";
  logAt(waitMs ? LogLevel::Debug : LogLevel::Info,
        {"auth_failed", 0, claim.keyId},
        "admission from " + source + " refused: " + *why);
  return false;
}

} // namespace

transport::AdmissionCheck keyAdmission(const std::vector<auth::Key> &keys,
                                       AuthThrottle *throttle) {
  if (keys.empty())
    return nullptr;
  return [keys, throttle](const transport::AdmissionClaim &claim,
                          std::string *why) {
    return checkClaim(keys, throttle, claim, why);
  };
}

transport::AdmissionCheck keyAdmission(const KeyRing *ring,
                                       AuthThrottle *throttle) {
  return [ring, throttle](const transport::AdmissionClaim &claim,
                          std::string *why) {
    return checkClaim(*ring->snapshot(), throttle, claim, why);
  };
}

} // namespace rc::server
