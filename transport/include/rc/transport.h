// Message transport between the client runtime and rc-server, over libfabric
// RDM endpoints. Addresses:
//   tcp://HOST:PORT   provider "tcp;ofi_rxm" (across hosts, or loopback)
//   shm://NAME        provider "shm" (same host)
// A Listener owns the well-known endpoint. A client's first message reaches
// it; the listener then opens a private endpoint for that client and both
// sides continue on a one-to-one Connection, so every server session is an
// independent object with its own thread.
#ifndef RC_TRANSPORT_H
#define RC_TRANSPORT_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rc::transport {

enum class Status { Ok, Timeout, Closed, Error };

// Memory of one side that the other side may write into directly (RMA): the
// address and key the writer needs. Large read-backs use it so that their
// bytes go from the server's staging memory straight into the client's
// destination, instead of through a reply message and two more copies.
struct RemoteRegion {
  uint64_t addr = 0;
  uint64_t key = 0;
};

// One write of Connection::writeRemoteAll.
struct RemoteWrite {
  const void *data;
  size_t size;
  RemoteRegion dst;
};

// What seals one direction of a connection
// (docs/transport-internals/connections.md, "Sealing"): an AES-256-GCM key and
// the IV each record's number is mixed into. Both sides derive them from their
// handshake (rc/auth/session_keys.h).
struct TrafficKey {
  std::array<uint8_t, 32> key{};
  std::array<uint8_t, 12> iv{};
};
struct SealKeys {
  TrafficKey send, receive;
};

const char *statusName(Status s);

// What a peer can make this side hold for it. A message announced larger
// than maxMessage ends the connection (lastError names the bound): its
// fragments could not be reassembled without that memory. Once the
// messages received but not yet taken by recv() reach maxQueued bytes,
// this side stops reading ahead, so the peer's sends wait instead of this
// side's memory growing. The defaults bound nothing beyond the framing.
struct ReceiveLimits {
  uint64_t maxMessage = uint64_t(1) << 36; // 64 GiB
  uint64_t maxQueued = UINT64_MAX;
};

class Connection {
public:
  virtual ~Connection() = default;
  // Sends one message of any size (large ones are split and reassembled).
  virtual Status send(const void *data, size_t size) = 0;
  // Receives one whole message. timeoutMs < 0 waits forever.
  virtual Status recv(std::vector<uint8_t> &message, int timeoutMs) = 0;
  // False once the peer is known to be gone (process exited, connection
  // reset, or no sign of life within the keep-alive window).
  virtual bool peerAlive() = 0;
  virtual std::string peerDescription() const = 0;
  // Why the last non-Ok status happened, for error messages.
  virtual std::string lastError() const = 0;
  // The peer runs on this machine (shm), so the two may share memory by
  // mapping the same file.
  virtual bool sameHost() const { return false; }
  // Where the peer is, for per-host limits and logs: over tcp its IP address
  // without the port (the address this side sends to, so a peer cannot give
  // another's without losing its own connection), over shm "this host".
  virtual std::string peerHost() const { return peerDescription(); }
  // The user id of the peer's process, where the kernel vouches for it
  // (shm: the credentials of its handshake socket); false where no one
  // does (tcp, in-memory connections). rc-server tells local users apart
  // by it when it has no keys.
  virtual bool peerUid(uint32_t *uid) const {
    (void)uid;
    return false;
  }
  // Replaces the receive bounds; a server raises them once it knows who
  // the peer is (rc-server: when the session is established).
  virtual void limitReceive(const ReceiveLimits &limits) { (void)limits; }

  // RMA, for bulk data. exposeForWrite lets the peer write [buf, buf+size)
  // of this process and not a byte beside it, under a key of this
  // connection only; false when this connection cannot (no RMA in the
  // provider, registration refused): use messages. The exposure lasts until
  // release(*out): call it once the peer's write arrived or will not come.
  // Registrations are cached, so exposing the same memory again is cheap.
  virtual bool exposeForWrite(void *buf, size_t size, RemoteRegion *out) {
    (void)buf, (void)size, (void)out;
    return false;
  }
  virtual void release(const RemoteRegion &region) { (void)region; }
  // Ends every exposure of memory overlapping [buf, buf+size), released or
  // not: call it before freeing memory that was exposed.
  virtual void withdraw(void *buf, size_t size) { (void)buf, (void)size; }
  // Writes `size` bytes into the peer's memory at `dst` (which the peer
  // exposed); returns once `data` may be reused. A message sent after it
  // arrives after the bytes.
  virtual Status writeRemote(const void *data, size_t size,
                             const RemoteRegion &dst) {
    (void)data, (void)size, (void)dst;
    return Status::Error;
  }
  // Several writes at once, as writeRemote each; over tcp with lanes they
  // are striped together across the lanes (docs/transport.md, "Lanes").
  virtual Status writeRemoteAll(const std::vector<RemoteWrite> &writes) {
    for (const RemoteWrite &w : writes)
      if (Status s = writeRemote(w.data, w.size, w.dst); s != Status::Ok)
        return s;
    return Status::Ok;
  }
  // How many extra TCP connections each way carry this connection's large
  // writes (0: none; shm never has any).
  virtual int lanes() const { return 0; }

  // Sealing (docs/transport-internals/connections.md, "Sealing"). Whether this
  // connection's bytes may cross a network: tcp to a peer outside 127.0.0.0/8
  // (every tcp peer with RC_DEV_TRANSPORT_SEAL_LOOPBACK=1); never over shm.
  virtual bool offLoopback() const { return false; }
  // From now on every message and RMA write this side sends, its lanes'
  // included, is encrypted and authenticated with keys.send, and every one
  // it receives must open with keys.receive; a record that was changed,
  // replayed, reordered or dropped, or a clear one, ends the connection,
  // naming it, and tells the peer. `oneClearMessage`: until the first
  // sealed record arrives, one clear message is still delivered
  // (lastReceivedSealed() false): a server's refusal of a handshake, sent
  // before it had keys. Memory exposed from now on is not registered with
  // the provider: only sealed writes reach it. False (with *error) where
  // the connection cannot seal (shm, or not connected).
  virtual bool seal(const SealKeys &keys, bool oneClearMessage,
                    std::string *error) {
    (void)keys, (void)oneClearMessage;
    *error = "this connection cannot be sealed";
    return false;
  }
  virtual bool sealed() const { return false; }
  // Whether the message recv() returned last arrived sealed.
  virtual bool lastReceivedSealed() const { return false; }
};

// Admission (docs/design/preauth-admission.md, "Admission"): a listener given
// an `admit` check opens nothing for a client (no private endpoint, no shm
// region) before the client proved it holds a key. It answers the client's
// Connect with a fresh 32-byte challenge from where the request came (tcp: the
// well-known endpoint; shm: the Unix socket); the client's next frame
// names a key id and carries an HMAC under that key over a transcript of
// both sides' nonces, the key id and its whole connect request. The
// transport knows no keys: the owner checks the proof (rc-server: its key
// file, rc/auth/proof.h's admissionProof).
struct AdmissionClaim {
  std::string keyId;               // as the client sent it (unchecked)
  std::vector<uint8_t> transcript; // what the proof covers
  std::array<uint8_t, 32> proof{};
  // Where the client is, as the transport knows it before any endpoint:
  // tcp the IP of the address its request names (where the challenge
  // went), shm the user id the kernel recorded for its socket.
  std::string peerHost;
  bool hasPeerUid = false;
  uint32_t peerUid = 0;
};
// True when the proof is right; otherwise false with *why, which the
// client is told. It runs on the thread that calls Listener::accept.
using AdmissionCheck =
    std::function<bool(const AdmissionClaim &claim, std::string *why)>;

// The client's side: the key it names and how to prove it over a
// transcript (without the key: the client cannot pass a listener that
// asks, and says so).
struct AdmissionKey {
  std::string keyId;
  std::function<bool(const std::vector<uint8_t> &transcript,
                     std::array<uint8_t, 32> *proof)>
      prove;
};

// How a listener treats clients that have not finished the transport
// handshake (tcp: our Accept not yet through to them; shm: their request
// not yet read), and what the connections it returns may make the server
// hold until limitReceive() raises it. At most maxHandshakes are worked on
// at once (a new one pushes out the oldest) and each gets handshakeMs; no
// single one blocks the others.
struct ListenOptions {
  ReceiveLimits accepted;
  int maxHandshakes = 64;
  int handshakeMs = 3000;
  // Set: every client proves a key before anything is opened for it
  // (above). Challenges waiting for their proof are small fixed records:
  // at most maxChallenges (tcp; shm's wait in the handshake table), each
  // for handshakeMs, a new one pushing out the oldest.
  AdmissionCheck admit;
  int maxChallenges = 1024;
};

class Listener {
public:
  virtual ~Listener() = default;
  // Waits for a new client; returns nullptr on timeout or error.
  virtual std::unique_ptr<Connection> accept(int timeoutMs) = 0;
  virtual std::string address() const = 0;
  virtual std::string lastError() const = 0;
};

// Both return nullptr and fill *error with a sentence naming the address and
// the reason (unreachable, refused, bad URL, provider missing, timeout).
std::unique_ptr<Connection> connect(const std::string &url, int timeoutMs,
                                    std::string *error);
// The same, proving `admission`'s key to a listener that asks for one.
std::unique_ptr<Connection> connect(const std::string &url, int timeoutMs,
                                    const AdmissionKey &admission,
                                    std::string *error);
std::unique_ptr<Listener> listen(const std::string &url, std::string *error);
std::unique_ptr<Listener> listen(const std::string &url,
                                 const ListenOptions &options,
                                 std::string *error);

// The address a server's redirect (HelloReply.redirect) names, for a
// client that reached the server at `reached`: "tcp://:PORT" is that port
// on the host of `reached`. Empty, with *error, for a redirect that is not
// a well-formed address of the same kind (tcp or shm) as `reached`.
std::string redirectUrl(const std::string &redirect, const std::string &reached,
                        std::string *error);

// Empty, or why an RC_TRANSPORT_* variable's value was refused (the
// defaults apply meanwhile). Read once per process, by rc::EnvReader's
// rule; the owner refuses to run with it: rc-server does not start, the
// client runtime fails its calls naming it.
const std::string &settingsError();

} // namespace rc::transport

#endif
