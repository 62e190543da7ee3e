// libFuzzer harness: the transport's handshake payload (Connect / Accept
// frames over tcp, the shm rendezvous over a Unix socket), which any peer
// that reaches the port sends before anything is known about it. Whatever
// decodeHello accepts must encode back to what decodes the same.
#include "frame.h"

#include <cstdlib>
#include <cstring>

using namespace rc::transport::detail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Hello hello;
  if (!decodeHello(data, size, &hello))
    return 0;
  std::vector<uint8_t> frame = encodeHello(FrameType::Connect, hello);
  Hello again;
  if (frame.size() < sizeof(FrameHeader) ||
      !decodeHello(frame.data() + sizeof(FrameHeader),
                   frame.size() - sizeof(FrameHeader), &again) ||
      again.version != hello.version || again.nonce != hello.nonce ||
      again.pid != hello.pid || again.hostname != hello.hostname ||
      again.address != hello.address)
    std::abort(); // encodeHello and decodeHello disagree
  return 0;
}
