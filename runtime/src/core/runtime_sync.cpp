// The batch model: appending, sending without waiting, round trips, and
// turning the server's replies into results, payloads and deferred errors.
#include "core/runtime.h"
#include "rc/command_table.h"
#include "rc/wire_message.h"

#include <cstdio>
#include <cstring>

namespace rc::rt {

namespace {
// recv slice while waiting: long kernels are fine, a dead server is noticed
// through peerAlive() within one slice.
constexpr int kRecvSliceMs = 1000;
} // namespace

uint32_t Runtime::appendLocked(wire::Command type,
                               flatbuffers::Offset<void> cmd, OpDesc desc) {
  readbackIsLast_ = false;
  uint32_t index = batch_.add(type, cmd);
  batchOps_.push_back(desc);
  ++stats_.commands;
  // rc/command_table.h says which commands leave work on the device.
  // Uploads do not arm the flusher: their bytes are in the batch already,
  // and the work that reads them (a launch) arms it or a sync sends them.
  const wire::CommandInfo *info = wire::commandInfo(type);
  if (!info || info->clientDeviceWork) {
    workSinceSync_ = true;
    armFlusherLocked();
  }
  // It may change managed memory: the host may not touch it until the
  // next synchronization reads it back (managed_memory.h).
  if (ManagedMirrors::mayChangeManaged(type))
    managed_.noteDeviceWork();
  stats_.launches += type == wire::Command::Launch;
  stats_.graphLaunches += type == wire::Command::GraphLaunch;
  return index;
}

// Sends the batch without waiting when it is full or old; the flusher
// thread covers device work that ages while the application does host work.
void Runtime::afterAppendLocked() {
  if (batch_.empty())
    return;
  bool full = batch_.commandCount() >= opts_.maxCommands ||
              batch_.byteSize() >= opts_.maxBytes;
  bool old = std::chrono::steady_clock::now() >=
             batch_.firstAppend() + std::chrono::microseconds(opts_.batchAgeUs);
  if (full || old)
    sendBatchLocked(false, {}, nullptr);
}

cudaError_t Runtime::sendBatchLocked(bool replyWanted, std::vector<Sink> sinks,
                                     uint64_t *seqOut) {
  if (state_ != State::Connected) {
    batch_.reset();
    disarmFlusherLocked();
    batchOps_.clear();
    return unavailableLocked();
  }
  if (batch_.empty() && !replyWanted)
    return cudaSuccess;
  uint64_t seq = nextSeq_++;
  size_t size = 0;
  const uint8_t *bytes = batch_.finish(seq, replyWanted, &size);
  link_.startingOut();
  transport::Status st = conn_->send(bytes, size);
  batch_.reset();
  disarmFlusherLocked();
  sentOps_[seq] = std::move(batchOps_);
  batchOps_.clear();
  if (st != transport::Status::Ok) {
    loseConnectionLocked(std::string("sending a batch failed: ") +
                         conn_->lastError());
    return unavailableLocked();
  }
  ++stats_.messages;
  stats_.bytesUp += size;
  // Ring uploads crossed the link too.
  link_.sent(seq, size + transfers_.takeBatchRmaBytesLocked());
  if (replyWanted)
    sinks_[seq] = std::move(sinks);
  if (seqOut)
    *seqOut = seq;
  return cudaSuccess;
}

cudaError_t Runtime::recvOneLocked(int timeoutMs) {
  std::vector<uint8_t> msg;
  transport::Status st = conn_->recv(msg, timeoutMs);
  if (st == transport::Status::Ok) {
    stats_.bytesDown += msg.size();
    handleReplyLocked(msg);
    return cudaSuccess;
  }
  if (st == transport::Status::Timeout) {
    if (!conn_->peerAlive())
      loseConnectionLocked("the server stopped responding");
    return unavailableLocked();
  }
  loseConnectionLocked(std::string("receive failed (") +
                       transport::statusName(st) + "): " + conn_->lastError());
  return unavailableLocked();
}

// Waits until batch `seq` is answered; with `all`, until every reply-wanted
// batch is (async D2H payloads land before a sync returns).
cudaError_t Runtime::waitSeqLocked(uint64_t seq, bool all) {
  auto pending = [&] { return all ? !sinks_.empty() : sinks_.count(seq) != 0; };
  if (!pending())
    return cudaSuccess;
  auto begin = std::chrono::steady_clock::now();
  ScopedNs waiting(stats_.replyWaitNs);
  while (pending()) {
    cudaError_t err = recvOneLocked(kRecvSliceMs);
    if (err != cudaSuccess)
      return err;
  }
  stats_.recordWait(begin, std::chrono::steady_clock::now());
  return cudaSuccess;
}

std::string Runtime::describeOpLocked(uint64_t seq, uint32_t index) {
  auto it = sentOps_.find(seq);
  if (it == sentOps_.end() || index >= it->second.size())
    return "an earlier operation";
  const OpDesc &op = it->second[index];
  if (op.kernelId)
    return std::string(op.call) + " of kernel " +
           KernelIndex::describe(index_.kernel(op.kernelId));
  return op.call;
}

// The bare name of the failed operation: the kernel's demangled name for a
// launch, else the API call.
std::string Runtime::opNameLocked(uint64_t seq, uint32_t index) {
  auto it = sentOps_.find(seq);
  if (it == sentOps_.end() || index >= it->second.size())
    return "\x01"; // matches no message
  const OpDesc &op = it->second[index];
  if (op.kernelId) {
    const manifest::Kernel *k = index_.kernel(op.kernelId);
    if (k && k->demangled() && k->demangled()->size())
      return k->demangled()->str();
    return "\x01";
  }
  return op.call;
}

void Runtime::handleReplyLocked(const std::vector<uint8_t> &msg) {
  std::string bad;
  const wire::Message *m = wire::openMessage(msg.data(), msg.size(), &bad);
  const wire::BatchReply *r = m ? m->body_as_BatchReply() : nullptr;
  if (!r) {
    loseConnectionLocked(
        "the server sent a malformed reply" +
        (m ? std::string(" (not a BatchReply)") : " (" + bad + ")"));
    return;
  }
  transfers_.ringReleasedLocked(r->ring_released());
  if (r->device_output() && r->device_output()->size()) {
    // Device printf: CUDA writes it to the process's stdout when the work
    // is synchronized, and flushes; so does this, at the reply that
    // carries it (docs/runtime-api.md "Device printf").
    std::fwrite(r->device_output()->data(), 1, r->device_output()->size(),
                stdout);
    std::fflush(stdout);
  }
  if (r->errors())
    for (const wire::Error *e : *r->errors()) {
      std::string op = describeOpLocked(e->seq(), e->index());
      std::string message = e->message() ? e->message()->str() : "";
      std::string line = "remote-clang: " + op +
                         " failed on the GPU server: " + message + " (" +
                         cudaGetErrorName(errorFromWire(e->code())) + ")";
      // rc-server names the operation itself (it has the manifest too);
      // only our view of it when its message does not.
      if (!message.empty() &&
          message.find(opNameLocked(e->seq(), e->index())) != std::string::npos)
        line = "remote-clang: GPU server error: " + message + " (" +
               cudaGetErrorName(errorFromWire(e->code())) + ")";
      // After a sticky error the server fails every later batch with the
      // same message: say it once.
      if (line != lastErrorLine_)
        std::fprintf(stderr, "%s\n", line.c_str());
      lastErrorLine_ = line;
      errors_.push_back(
          {e->seq(), e->index(),
           e->code() ? errorFromWire(e->code()) : cudaErrorUnknown});
    }
  auto it = sinks_.find(r->seq());
  uint64_t rmaBytes = 0; // written into our memory: they crossed the link too
  uint64_t sharedBytes = 0; // written by the GPU into memory we share
  if (it != sinks_.end() && r->results())
    for (const wire::Result *res : *r->results())
      for (Sink &s : it->second) {
        if (s.index != res->index())
          continue;
        if (s.rma && res->written_remotely())
          (s.shared ? sharedBytes : rmaBytes) += s.payloadSize;
        else if (s.payload) {
          size_t got = res->payload() ? res->payload()->size() : 0;
          if (s.payloadGot && got <= s.payloadSize)
            *s.payloadGot = got;
          else if (got != s.payloadSize) {
            errors_.push_back({r->seq(), s.index, cudaErrorUnknown});
            std::fprintf(stderr,
                         "remote-clang: the server returned %zu bytes for a "
                         "%zu-byte read\n",
                         got, s.payloadSize);
            continue;
          }
          if (got)
            std::memcpy(s.payload, res->payload()->data(), got);
        }
        if (s.addr)
          *s.addr = res->addr();
        if (s.value)
          *s.value = res->value();
        if (s.code)
          *s.code = res->code();
        if (s.filled)
          *s.filled = true;
      }
  stats_.bytesDownRma += rmaBytes;
  stats_.bytesDownShared += sharedBytes;
  link_.deliver(r->seq(), msg.size() + rmaBytes);
  if (it == sinks_.end())
    return; // an error-only report for a batch sent without reply_wanted
  // The server writes nothing more for this batch: its exposures may go.
  for (const Sink &s : it->second)
    if (s.rma && !s.shared)
      conn_->release(s.exposure);
  // A reply to batch N means the server has replayed every batch up to N.
  sentOps_.erase(sentOps_.begin(), sentOps_.upper_bound(r->seq()));
  sinks_.erase(it);
}

cudaError_t Runtime::takePendingErrorLocked() {
  if (errors_.empty())
    return cudaSuccess;
  cudaError_t first = errors_.front().code;
  errors_.clear();
  return first;
}

void Runtime::countRoundTripLocked(const char *call) {
  ++stats_.roundTrips;
  ++stats_.roundTripsByCall[call];
}

bool Runtime::syncElidableLocked() const {
  return opts_.elideSyncs && !workSinceSync_ && sinks_.empty() &&
         errors_.empty();
}

bool Runtime::syncFoldsIntoReadbackLocked(uint64_t stream) const {
  return readbackIsLast_ && readbackStream_ == stream && batch_.empty() &&
         !sinks_.empty();
}

cudaError_t Runtime::waitForReadbackLocked(const char *call) {
  countRoundTripLocked(call);
  if (cudaError_t err = waitSeqLocked(0, /*all=*/true))
    return err;
  workSinceSync_ = false;
  return takePendingErrorLocked();
}

cudaError_t Runtime::elideSyncLocked(wire::Command type,
                                     flatbuffers::Offset<void> cmd,
                                     const char *call) {
  // The server still replays the sync in order, so everything after it
  // sees the device state the host would have waited for; what changes is
  // that an error of the uploads surfaces at the next waiting call.
  appendLocked(type, cmd, {call, 0});
  ++stats_.syncsElided;
  afterAppendLocked();
  return cudaSuccess;
}

cudaError_t Runtime::roundTripLocked(std::vector<Sink> sinks, bool sync) {
  uint64_t seq = 0;
  countRoundTripLocked(batchOps_.empty() ? "(empty batch)"
                                         : batchOps_.back().call);
  cudaError_t err = sendBatchLocked(true, std::move(sinks), &seq);
  if (err == cudaSuccess)
    err = waitSeqLocked(seq, sync);
  if (err != cudaSuccess)
    return err;
  if (sync) {
    workSinceSync_ = false;
    return takePendingErrorLocked();
  }
  // Not a sync: only a failure of this batch's own commands is this call's
  // result; errors of earlier batches wait for the next sync.
  for (auto e = errors_.begin(); e != errors_.end(); ++e)
    if (e->seq == seq) {
      cudaError_t code = e->code;
      errors_.erase(e);
      return code;
    }
  return cudaSuccess;
}

// Every command runs on the session's current device; a thread whose
// cudaSetDevice differs from the last one sent gets a SetDevice first, and
// managed memory the host wrote goes to the device before the command.
void Runtime::ensureDeviceLocked() {
  int dev = threadDevice();
  if (dev != sentDevice_) {
    appendLocked(wire::Command::SetDevice,
                 wire::CreateSetDevice(batch_.fbb(), dev).Union(),
                 {"cudaSetDevice", 0});
    sentDevice_ = dev;
  }
  uploadManagedLocked();
}

cudaError_t Runtime::askLocked(wire::Command type,
                               flatbuffers::Offset<void> cmd, const char *call,
                               uint64_t *addr, double *value) {
  bool filled = false;
  Sink sink;
  sink.index = appendLocked(type, cmd, {call, 0});
  sink.addr = addr;
  sink.value = value;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  return filled ? cudaSuccess : cudaErrorUnknown;
}

// A query is a round trip whose result code is cudaSuccess or
// cudaErrorNotReady; like cudart, it also reports errors of earlier work.
cudaError_t Runtime::queryLocked(wire::Command type,
                                 flatbuffers::Offset<void> cmd,
                                 const char *call) {
  int code = 0;
  bool filled = false;
  Sink sink;
  sink.index = appendLocked(type, cmd, {call, 0});
  sink.code = &code;
  sink.filled = &filled;
  if (cudaError_t err = roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (cudaError_t err = takePendingErrorLocked())
    return err;
  return filled ? errorFromWire(code) : cudaErrorUnknown;
}

cudaError_t Runtime::deviceSynchronize() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  if (graphs_.stateLocked().anyCapture()) {
    // Would wait on capturing streams: illegal, and fatal to the captures.
    graphs_.stateLocked().invalidateAll();
    std::fprintf(stderr, "remote-clang: cudaDeviceSynchronize during stream "
                         "capture is not allowed; the capture is invalidated "
                         "(cudaErrorStreamCaptureUnsupported)\n");
    return cudaErrorStreamCaptureUnsupported;
  }
  ensureDeviceLocked();
  auto cmd = wire::CreateDeviceSynchronize(batch_.fbb()).Union();
  if (syncElidableLocked())
    return downloadManagedLocked(elideSyncLocked(
        wire::Command::DeviceSynchronize, cmd, "cudaDeviceSynchronize"));
  appendLocked(wire::Command::DeviceSynchronize, cmd,
               {"cudaDeviceSynchronize", 0});
  return downloadManagedLocked(roundTripLocked({}, /*sync=*/true));
}

} // namespace rc::rt
