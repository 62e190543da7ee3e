// A tap at the socket layer of this test process: the transport's
// libfabric provider and its lanes send over TCP sockets with sendmsg, send
// and sendto, which this file defines in the executable (exported, so the
// libfabric loaded at run time binds to them too) and forwards to the C
// library's. While on, it records the bytes handed to every TCP socket,
// and it can change the next send of at least some size once: flip one of
// its bytes, send it twice, or swallow it. What the receiving side then
// says is what a person on the path would meet.
#ifndef RC_TRANSPORT_WIRE_TAP_H
#define RC_TRANSPORT_WIRE_TAP_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rc::transport::test {

class WireTap {
public:
  enum class Action { Flip, Replay, Drop };
  // Records every byte sent on a TCP socket until stop(); clears the
  // recording first.
  static void record();
  static void stop();
  static std::vector<uint8_t> recorded();
  static bool recordedContains(const std::vector<uint8_t> &needle);
  // The next send on a TCP socket of at least `minBytes` gets `action`
  // (Flip: the byte `fromEnd` bytes before its end).
  static void arm(Action action, size_t minBytes, size_t fromEnd = 64);
  static void disarm();
  // Whether the armed action happened.
  static bool fired();
};

} // namespace rc::transport::test

#endif
