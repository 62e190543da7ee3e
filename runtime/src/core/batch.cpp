#include "core/batch.h"

namespace rc::rt {

uint32_t BatchBuilder::add(wire::Command type, flatbuffers::Offset<void> cmd) {
  if (entries_.empty())
    first_ = std::chrono::steady_clock::now();
  entries_.push_back(wire::CreateCommandEntry(fbb_, type, cmd));
  return uint32_t(entries_.size() - 1);
}

const uint8_t *BatchBuilder::finish(uint64_t seq, bool replyWanted,
                                    size_t *size) {
  auto cmds = fbb_.CreateVector(entries_);
  auto batch = wire::CreateBatch(fbb_, seq, cmds, replyWanted);
  auto msg = wire::CreateMessage(fbb_, wire::Body::Batch, batch.Union());
  wire::FinishMessageBuffer(fbb_, msg);
  *size = fbb_.GetSize();
  return fbb_.GetBufferPointer();
}

void BatchBuilder::reset() {
  fbb_.Clear();
  entries_.clear();
}

} // namespace rc::rt
