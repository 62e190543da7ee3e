// The messages rc-server sends, finished one way: a Message root with the
// protocol's file identifier, copied out of the builder as the bytes to
// send. Sessions, their authentication and the front door of --isolation
// process all build their replies through these.
#ifndef RC_SERVER_SERVER_MESSAGE_H
#define RC_SERVER_SERVER_MESSAGE_H

#include "protocol_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rc::server {

std::vector<uint8_t> finishMessage(flatbuffers::FlatBufferBuilder &fbb,
                                   wire::Body type,
                                   flatbuffers::Offset<void> body);

// A HelloReply that refuses the session, saying why; with retryAfterMs > 0
// the refusal may pass and the client tries again after that long
// (HelloReply.retry_after_ms).
std::vector<uint8_t> helloRefusal(const std::string &why,
                                  uint32_t retryAfterMs = 0);

} // namespace rc::server

#endif
