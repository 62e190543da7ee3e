// The read-back bytes of the batch being run (docs/server-internals/bounds.md,
// "Bounds"): each is counted against the session's bound on one reply and
// the budget all sessions share before it is copied straight into the
// reply's builder, or written into the client's memory by RMA when the
// command asked for that and the transport can.
#ifndef RC_SERVER_REPLY_WRITER_H
#define RC_SERVER_REPLY_WRITER_H

#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "protocol_generated.h"
#include "rc/server/limits.h"
#include "rc/server/session_metrics.h"

#include <functional>

namespace rc::server {

class ReplyWriter {
public:
  // Writes read-back bytes straight into the client's memory (the
  // transport's RMA; docs/transport.md).
  using RemoteWriter = std::function<bool(const uint8_t *data, uint64_t size,
                                          uint64_t addr, uint64_t key)>;

  explicit ReplyWriter(DeviceBinding &devices) : devices_(devices) {}
  // At most `maxBytes` read back in one batch's reply, taken from
  // `budgets` (all sessions' reply bytes). Before the first batch.
  void setBounds(uint64_t maxBytes, BudgetSet budgets);
  void setRemoteWriter(RemoteWriter writer,
                       std::function<uint64_t()> pieceBytes) {
    remoteWriter_ = std::move(writer);
    remotePieceBytes_ = std::move(pieceBytes);
  }
  void setMetrics(SessionMetrics *metrics) { metrics_ = metrics; }

  // A batch starts: the previous reply has been sent (its bytes are free
  // again), and this one is built in `reply`.
  void startBatch(flatbuffers::FlatBufferBuilder &reply);
  flatbuffers::FlatBufferBuilder &builder() { return *reply_; }
  // Counts `size` more read-back bytes into this batch's reply: within the
  // session's bound and the budget all sessions share, or an error naming
  // the one that would be passed.
  OpStatus reserve(uint64_t size);
  void release(); // the reply went out: its bytes are free again
  // Copies `size` device bytes into a new vector of the reply builder.
  OpStatus readBack(uint64_t src, uint64_t size, NativeHandle stream,
                    ResultData &r);
  // A MemcpyD2H that asked for RMA: written into the client's memory if the
  // transport can, else (also after a failed write) readBack().
  OpStatus readBackRemote(const wire::MemcpyD2H &c, NativeHandle stream,
                          ResultData &r);

private:
  DeviceBinding &devices_;
  flatbuffers::FlatBufferBuilder *reply_ = nullptr; // during run()
  uint64_t replyBytes_ = 0; // payload bytes of the batch being run
  // A flatbuffer must stay under 2 GiB, and FlatBufferBuilder aborts
  // rather than fail beyond that.
  static constexpr uint64_t kMaxReplyBytes = uint64_t(1) << 30;
  uint64_t maxReplyBytes_ = ServerLimits().replyBytes;
  BudgetSet budgets_;
  uint64_t held_ = 0; // taken from budgets_ for the last reply
  RemoteWriter remoteWriter_;
  std::function<uint64_t()> remotePieceBytes_;
  SessionMetrics *metrics_ = nullptr;
};

} // namespace rc::server

#endif
