// Handshake channel for shm:// connections: a Unix stream socket in the
// abstract namespace ("\0rc_transport.NAME").
//
// Why not a libfabric message to a well-known shm endpoint (as tcp does):
// libfabric 1.17's shm provider crashes (SIGSEGV in fi_cq_read) when the
// listener processes the first message of a client whose process has
// already exited and unlinked its region: it maps the sender's region by
// name on receipt. A client that times out and exits before the server
// calls accept() could thus kill rc-server. Over the socket, the server
// only ever maps a client's region (fi_av_insert) while that client is
// alive and waiting for the reply. Abstract sockets also vanish with their
// process, so a dead listener leaves no stale name behind, and the kernel
// tells us the peer's pid (SO_PEERCRED).
#ifndef RC_TRANSPORT_UNIX_RENDEZVOUS_H
#define RC_TRANSPORT_UNIX_RENDEZVOUS_H

#include "frame.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rc::transport::detail {

// Bound, listening socket for NAME, or -1 with *error (e.g. "the name is in
// use by process P").
int unixListen(const std::string &name, std::string *error);
// Accepts one waiting client without blocking: its (non-blocking) socket,
// or -1 when none waits (*error empty) or on failure (*error set). *pid is
// the client's pid.
int unixAcceptNow(int listenFd, uint32_t *pid, std::string *error);
// Connects to NAME; -1 with *error when nobody listens there (then
// *refused, if given, is true: worth trying again) or on another failure.
int unixConnect(const std::string &name, std::string *error,
                bool *refused = nullptr);

// The pid of the process at the other end of a connected socket.
uint32_t unixPeerPid(int fd);
// Its user id, as the kernel recorded it at connect(); false if unknown.
bool unixPeerUid(int fd, uint32_t *uid);
// True while the peer has not closed or shut down its end.
bool unixPeerStillThere(int fd);

// Length-prefixed Hello frames over a connected socket. passFd >= 0 goes
// along with the frame (SCM_RIGHTS); *passedFd receives such a file
// descriptor, or -1 if the peer sent none; one that arrives where none is
// asked for (passedFd null, or a second one) is closed.
bool sendHello(int fd, FrameType type, const Hello &hello, std::string *error,
               int passFd = -1);
bool recvHello(int fd, FrameType type, int timeoutMs, Hello *hello,
               std::string *error, int *passedFd = nullptr);
// Any frame (header and payload) the same way: admission's frames
// (admission.h) travel like the Hellos.
bool sendFrame(int fd, std::vector<uint8_t> frame, std::string *error,
               int passFd = -1);
bool recvFrame(int fd, int timeoutMs, std::vector<uint8_t> *frame,
               std::string *error, int *passedFd = nullptr);
// A whole frame (after its length prefix) that must be a Hello of `type`
// and of our version.
bool decodeHelloFrame(const std::vector<uint8_t> &frame, FrameType type,
                      Hello *hello, std::string *error);
// The frame type of a whole frame, or 0 when it is no frame of ours.
uint16_t frameType(const std::vector<uint8_t> &frame);

// The same frame read piecewise from a non-blocking socket, as its bytes
// come: a listener waits for many clients at once, and one that connects
// and sends nothing (or half a request) holds up nobody.
class HelloReader {
public:
  enum class Step { More, Done, Failed };
  HelloReader() = default;
  HelloReader(HelloReader &&other) noexcept { *this = std::move(other); }
  HelloReader &operator=(HelloReader &&other) noexcept;
  HelloReader(const HelloReader &) = delete;
  ~HelloReader(); // closes a passed descriptor nobody took
  // Reads what the socket holds now. Done: *hello is the request.
  Step readAvailable(int fd, FrameType type, Hello *hello, std::string *error);
  // The same for any frame: Done with the whole frame in *frame; the
  // reader then reads the next one.
  Step readFrame(int fd, std::vector<uint8_t> *frame, std::string *error);
  // The descriptor the request carried (-1: none); the caller owns it.
  int takePassedFd();

private:
  uint8_t length_[4] = {};
  size_t lengthGot_ = 0;
  std::vector<uint8_t> frame_;
  size_t frameGot_ = 0;
  int passedFd_ = -1;
};

} // namespace rc::transport::detail

#endif
