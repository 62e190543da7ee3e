#include "listener_admission.h"

#include "inet.h"

#include <rdma/fi_errno.h>

#include <algorithm>

namespace rc::transport::detail {

bool checkProof(const AdmissionCheck &check, const Prove &prove,
                AdmissionClaim claim, Hello *request, std::string *why) {
  if (!decodeHello(prove.request.data(), prove.request.size(), request) ||
      request->version != kProtocolVersion) {
    *why = "a malformed or wrong-version request in the proof";
    return false;
  }
  claim.keyId = prove.keyId;
  claim.transcript = admissionTranscript(prove);
  claim.proof = prove.proof;
  return check(claim, why);
}

TcpAdmission::TcpAdmission(Endpoint &ep, AdmissionCheck check,
                           size_t maxChallenges, int maxAgeMs)
    : ep_(ep), check_(std::move(check)),
      maxOutgoing_(std::max<size_t>(maxChallenges, 1)), maxAgeMs_(maxAgeMs),
      pending_(std::max<size_t>(maxChallenges, 1), maxAgeMs) {}

void TcpAdmission::sendTo(const std::vector<uint8_t> &address,
                          std::vector<uint8_t> frame) {
  fi_addr_t to = FI_ADDR_UNSPEC;
  std::string err;
  if (!ep_.insertPeer(address, &to, &err)) {
    problem_ = "cannot answer a connect request: " + err;
    return;
  }
  if (outgoing_.size() >= maxOutgoing_) {
    ep_.removePeer(outgoing_.front().to);
    outgoing_.pop_front();
  }
  outgoing_.push_back(
      {to, std::move(frame), PendingChallenges::Clock::now(), false});
  pump();
}

void TcpAdmission::onConnect(const Hello &request) {
  uint64_t hash = addressHash(request.address);
  PendingChallenges::Entry *entry = pending_.find(request.nonce, hash);
  if (!entry) {
    std::optional<PendingChallenges::Entry> pushedOut;
    if (!pending_.issue(request.nonce, hash, &entry, &pushedOut)) {
      problem_ = "no random bytes for a challenge";
      return;
    }
    if (pushedOut)
      problem_ = "a challenge was pushed out, unanswered, by a newer one";
  }
  sendTo(request.address, encodeChallenge({request.nonce, entry->serverNonce}));
}

void TcpAdmission::refuse(const Hello &request, bool mayRetry,
                          const std::string &why) {
  sendTo(request.address, encodeRefusal({request.nonce, mayRetry, why}));
}

std::optional<Hello> TcpAdmission::onProve(const uint8_t *payload,
                                           size_t size) {
  Prove prove;
  Hello request;
  if (!decodeProve(payload, size, &prove) ||
      !decodeHello(prove.request.data(), prove.request.size(), &request)) {
    problem_ = "ignored a malformed proof";
    return std::nullopt;
  }
  // Single use: whatever comes of it, this challenge is answered.
  std::optional<PendingChallenges::Entry> entry =
      pending_.take(prove.serverNonce);
  if (!entry) {
    refuse(request, /*mayRetry=*/true,
           "its challenge lapsed or was answered already: connect again");
    problem_ = "a proof for no waiting challenge";
    return std::nullopt;
  }
  if (entry->requestNonce != request.nonce ||
      entry->addressHash != addressHash(request.address)) {
    refuse(request, false, "the proof is for another request");
    problem_ = "a proof for another request than the one challenged";
    return std::nullopt;
  }
  AdmissionClaim claim;
  claim.peerHost = hostOfAddressText(ep_.addressText(request.address));
  std::string why;
  if (!checkProof(check_, prove, std::move(claim), &request, &why)) {
    refuse(request, false, why);
    problem_ =
        "refused a proof from " + ep_.addressText(request.address) + ": " + why;
    return std::nullopt;
  }
  return request;
}

void TcpAdmission::pump() {
  auto now = PendingChallenges::Clock::now();
  for (Outgoing &o : outgoing_) {
    if (o.sent)
      continue;
    // Challenges and bare refusals fit the inject size and need no slot;
    // a refusal with its text takes one while one is free (none free:
    // later).
    long rc = -FI_EAGAIN;
    if (o.frame.size() <= ep_.injectSize()) {
      rc = ep_.inject(o.to, o.frame.data(), o.frame.size());
    } else if (SendSlot *slot = ep_.freeSlot()) {
      slot->copy = o.frame;
      rc = ep_.sendCopy(o.to, slot, o.frame.size());
    }
    if (rc == -FI_EAGAIN)
      continue; // rxm is still connecting to the client, or no slot
    o.sent = true;
    if (rc)
      problem_ =
          "cannot send a challenge or refusal: " + fiError("fi_send", rc);
  }
  // A frame's address stays until it surely went (or never will).
  while (!outgoing_.empty() && now - outgoing_.front().created >=
                                   std::chrono::milliseconds(maxAgeMs_)) {
    ep_.removePeer(outgoing_.front().to);
    outgoing_.pop_front();
  }
  std::vector<PendingChallenges::Entry> expired;
  pending_.expire(&expired);
}

std::string TcpAdmission::takeProblem() {
  std::string p = std::move(problem_);
  problem_.clear();
  return p;
}

} // namespace rc::transport::detail
