// Builds one wire Batch incrementally: each append serializes its command
// into the flatbuffer at once (so inline H2D data is copied at the call, as
// CUDA's pageable-copy semantics require), and finish() seals the message.
#ifndef RC_RT_BATCH_H
#define RC_RT_BATCH_H

#include "protocol_generated.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace rc::rt {

class BatchBuilder {
public:
  BatchBuilder() { reset(); }

  flatbuffers::FlatBufferBuilder &fbb() { return fbb_; }
  // Adds a command whose table was just built in fbb(); returns its index.
  uint32_t add(wire::Command type, flatbuffers::Offset<void> cmd);

  size_t commandCount() const { return entries_.size(); }
  size_t byteSize() const { return fbb_.GetSize(); }
  bool empty() const { return entries_.empty(); }
  // Time of the first command still waiting in this batch.
  std::chrono::steady_clock::time_point firstAppend() const { return first_; }

  // Seals the batch as a Message; the bytes stay valid until reset().
  const uint8_t *finish(uint64_t seq, bool replyWanted, size_t *size);
  void reset();

private:
  flatbuffers::FlatBufferBuilder fbb_{1 << 16};
  std::vector<flatbuffers::Offset<wire::CommandEntry>> entries_;
  std::chrono::steady_clock::time_point first_;
};

} // namespace rc::rt

#endif
