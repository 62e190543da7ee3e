// A transport client that speaks the handshake and the framing by hand, so
// that tests and stress tools can send what rc::transport never would: a
// connect request naming an address that never answers, a message size
// claim of 64 GiB, fragments far out of order, or nothing at all.
#ifndef RC_TEST_RAW_PEER_H
#define RC_TEST_RAW_PEER_H

#include "endpoint.h"
#include "frame.h"

#include <memory>
#include <string>
#include <vector>

namespace rc::transport::test {

class RawPeer {
public:
  ~RawPeer();
  // The transport handshake with the listener at `url`, as connect() does
  // it, up to where a listener with keys asks for a proof; false with
  // *error.
  bool connect(const std::string &url, int timeoutMs, std::string *error);
  // After connect(): the listener answered with an admission challenge
  // instead of a connection. The peer holds its side (tcp: its endpoint,
  // connected to the listener's; shm: its handshake socket) and answers
  // nothing.
  bool challenged() const { return challenged_; }
  // tcp, challenged: the same request again under a new nonce, so that
  // the listener has a challenge out for it again.
  bool knockAgain();
  // tcp: sends the listener at `url` a Connect request that names
  // `fakeAddress` (raw sockaddr_in) as the client's address, and nothing
  // else. shm has no such request over libfabric.
  static bool sendConnectNaming(const std::string &url,
                                const std::vector<uint8_t> &fakeAddress,
                                std::string *error);
  // The same from one endpoint, many times: openTowardsListener once, then
  // connectRequest for each request (a new nonce each).
  bool openTowardsListener(const std::string &url, std::string *error);
  bool connectRequest(const std::vector<uint8_t> &fakeAddress);
  // After connect(): true once the server closed the connection (its
  // Close frame arrived; a challenged shm peer: its socket).
  bool closedByServer();
  // One frame to the connected server: the header as given, then payload.
  bool sendFrame(detail::FrameType type, uint64_t seq, uint64_t total,
                 uint64_t offset, const void *payload, size_t size);
  // Moves the provider on (for a while) without reading anything for us.
  void progress(int ms);

private:
  std::unique_ptr<detail::Endpoint> ep_;
  fi_addr_t server_ = FI_ADDR_UNSPEC;
  bool closed_ = false;
  bool challenged_ = false;
  int shmSocket_ = -1; // a challenged shm peer's handshake socket
  detail::Hello request_;
};

} // namespace rc::transport::test

#endif
