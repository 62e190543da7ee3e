#include "session/server_message.h"

#include "rc/version.h"
#include "session/version_skew.h"

namespace rc::server {

std::vector<uint8_t> finishMessage(flatbuffers::FlatBufferBuilder &fbb,
                                   wire::Body type,
                                   flatbuffers::Offset<void> body) {
  wire::FinishMessageBuffer(fbb, wire::CreateMessage(fbb, type, body));
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

std::vector<uint8_t> helloRefusal(const std::string &why,
                                  uint32_t retryAfterMs) {
  flatbuffers::FlatBufferBuilder fbb;
  auto error = fbb.CreateString(why);
  auto release = fbb.CreateString(kReleaseVersion);
  wire::HelloReplyBuilder hr(fbb);
  addServerVersion(hr, release);
  hr.add_ok(false);
  hr.add_error(error);
  hr.add_retry_after_ms(retryAfterMs);
  return finishMessage(fbb, wire::Body::HelloReply, hr.Finish().Union());
}

} // namespace rc::server
