#include "executor/reply_writer.h"
#include "rc/server/errors.h"

#include <algorithm>

namespace rc::server {

void ReplyWriter::setBounds(uint64_t maxBytes, BudgetSet budgets) {
  maxReplyBytes_ = std::min(maxBytes, kMaxReplyBytes);
  budgets_ = std::move(budgets);
}

void ReplyWriter::startBatch(flatbuffers::FlatBufferBuilder &reply) {
  replyBytes_ = 0;
  release();
  reply_ = &reply;
}

OpStatus ReplyWriter::reserve(uint64_t size) {
  if (size > maxReplyBytes_ - replyBytes_)
    return OpStatus::fail(
        kErrInvalidValue,
        "reading " + std::to_string(size) +
            " more bytes would make this batch's reply exceed " +
            std::to_string(maxReplyBytes_) +
            " bytes (the server's RC_SERVER_MAX_REPLY_MIB); split "
            "the read-back");
  std::string why;
  if (!budgets_.take(size, &why))
    return OpStatus::fail(kErrMemoryAllocation,
                          why + ": retry or read back less at once");
  replyBytes_ += size;
  held_ += size;
  return OpStatus::success();
}

void ReplyWriter::release() {
  budgets_.give(held_);
  held_ = 0;
}

OpStatus ReplyWriter::readBack(uint64_t src, uint64_t size, NativeHandle stream,
                               ResultData &r) {
  if (size == 0)
    return OpStatus::success(); // no payload: the client expects 0 bytes
  OpStatus st = reserve(size);
  if (!st.ok())
    return st;
  // The builder may move its buffer on the next allocation: write now.
  uint8_t *dst = nullptr;
  r.payload = reply_->CreateUninitializedVector<uint8_t>(size, &dst);
  return devices_.syncResult(devices_.ctx()->copyD2H(dst, src, size, stream));
}

OpStatus ReplyWriter::readBackRemote(const wire::MemcpyD2H &c,
                                     NativeHandle stream, ResultData &r) {
  if (!remoteWriter_ || c.size() == 0)
    return readBack(c.src(), c.size(), stream, r);
  bool written = true;
  OpStatus st = devices_.ctx()->readD2H(
      c.src(), c.size(), stream,
      [&](const uint8_t *data, uint64_t offset, uint64_t n) {
        written = written &&
                  remoteWriter_(data, n, c.rma_addr() + offset, c.rma_key());
      },
      remotePieceBytes_ ? remotePieceBytes_() : 0);
  if (!st.ok())
    return st;
  if (!written) // the device bytes are unchanged: send them in the reply
    return readBack(c.src(), c.size(), stream, r);
  r.writtenRemotely = true;
  if (metrics_)
    metrics_->bytesOutRma.add(c.size());
  return st;
}

} // namespace rc::server
