// The listener's side of admission (admission.h, docs/transport.md,
// "Admission"): checking a proof through the owner's AdmissionCheck, and
// over tcp the challenges and refusals that go out from the well-known
// endpoint, so that a client that proves no key never gets a private
// endpoint. Over shm the listener keeps the challenge with the client's
// socket and uses checkProof alone.
#ifndef RC_TRANSPORT_LISTENER_ADMISSION_H
#define RC_TRANSPORT_LISTENER_ADMISSION_H

#include "admission.h"
#include "endpoint.h"
#include "rc/transport.h"

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace rc::transport::detail {

// Asks `check` about `prove` (the claim's peer fields as given); true with
// the client's request in *request, else false with *why.
bool checkProof(const AdmissionCheck &check, const Prove &prove,
                AdmissionClaim claim, Hello *request, std::string *why);

// tcp: challenges issued from the well-known endpoint `ep` and what goes
// out from it. Everything it holds is bounded: at most maxChallenges
// challenges and as many frames on their way, each for at most maxAgeMs
// (a frame's address stays in the endpoint's AV that long, then goes).
class TcpAdmission {
public:
  TcpAdmission(Endpoint &ep, AdmissionCheck check, size_t maxChallenges,
               int maxAgeMs);
  // A Connect: challenge it (again, for a repeated request).
  void onConnect(const Hello &request);
  // A Prove frame's payload: the admitted request, or nothing (the client
  // was told why, where it could be).
  std::optional<Hello> onProve(const uint8_t *payload, size_t size);
  // Sends what waits, forgets what aged out. Call every pass.
  void pump();
  // The last thing that went wrong, for the listener's lastError.
  std::string takeProblem();
  size_t challengesWaiting() const { return pending_.size(); }

private:
  struct Outgoing {
    fi_addr_t to;
    std::vector<uint8_t> frame;
    PendingChallenges::Clock::time_point created;
    bool sent;
  };
  // Queues `frame` for the client at `address`.
  void sendTo(const std::vector<uint8_t> &address, std::vector<uint8_t> frame);
  void refuse(const Hello &request, bool mayRetry, const std::string &why);

  Endpoint &ep_;
  AdmissionCheck check_;
  size_t maxOutgoing_;
  int maxAgeMs_;
  PendingChallenges pending_;
  std::deque<Outgoing> outgoing_; // oldest first
  std::string problem_;
};

} // namespace rc::transport::detail

#endif
