#include "rc/server/session.h"

#include "admission/peer_source.h"
#include "executor/executor.h"
#include "rc/hex.h"
#include "rc/server/content_cache.h"
#include "rc/server/errors.h"
#include "rc/server/log.h"
#include "rc/transport.h"
#include "rc/version.h"
#include "rc/wire_message.h"
#include "session/hello_auth.h"
#include "session/hello_kernel_attrs.h"
#include "session/server_message.h"
#include "session/transport_sealing.h"
#include "session/version_skew.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace rc::server {

namespace {

// Finishes a BatchReply in `fbb`, which may already hold the read-back
// payloads that `results` point to.
std::vector<uint8_t> batchReply(flatbuffers::FlatBufferBuilder &fbb,
                                uint64_t seq,
                                const std::vector<ResultData> &results,
                                const std::vector<ErrorData> &errors,
                                uint64_t ringReleased = 0,
                                const std::string &deviceOutput = {}) {
  std::vector<flatbuffers::Offset<wire::Result>> rs;
  for (const ResultData &r : results)
    rs.push_back(wire::CreateResult(fbb, r.index, r.addr, r.value, r.code,
                                    r.payload, r.writtenRemotely));
  std::vector<flatbuffers::Offset<wire::Error>> es;
  for (const ErrorData &e : errors)
    es.push_back(wire::CreateError(fbb, e.seq, e.index, e.code,
                                   fbb.CreateString(e.message)));
  auto printed = deviceOutput.empty() ? 0 : fbb.CreateString(deviceOutput);
  auto body =
      wire::CreateBatchReply(fbb, seq, fbb.CreateVector(rs),
                             fbb.CreateVector(es), ringReleased, printed);
  return finishMessage(fbb, wire::Body::BatchReply, body.Union());
}

std::vector<uint8_t> errorReply(uint64_t seq, const ErrorData &error) {
  flatbuffers::FlatBufferBuilder fbb;
  return batchReply(fbb, seq, {}, {error});
}

// A write over tcp lanes returns when every lane acknowledged its slice, a
// round trip per write: read-backs give each lane 1 MiB per piece (1 MiB
// pieces over 8 lanes read back at 7.3 GB/s; docs/transport.md, "Lanes").
// Elsewhere the device context's staging pieces suit the writer.
uint64_t readBackPieceBytes(const transport::Connection &conn) {
  constexpr uint64_t kPerLane = 1 << 20;
  return uint64_t(conn.lanes()) * kPerLane;
}

// A worker's refusal of a lapsed or replaced ticket: the client gets a
// fresh one from the supervisor right away.
constexpr uint32_t kStartOverMs = 1;
// A server that lost its GPU state re-executes itself: a client knocks
// again a little later (while nothing listens, its connect retries too).
constexpr uint32_t kRestartRetryMs = 200;

} // namespace

void DeviceHealth::markLost(const std::string &why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!lost_)
    reason_ = why;
  lost_ = true;
}
bool DeviceHealth::lost() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_;
}
std::string DeviceHealth::reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reason_;
}

Session::Session(const SessionEnv &env, uint64_t id)
    : env_(env), id_(id), metrics_(std::make_shared<SessionMetrics>()),
      keys_(env.keyRing
                ? env.keyRing->snapshot()
                : std::make_shared<const std::vector<auth::Key>>(env.keys)),
      auth_(std::make_unique<HelloAuth>(*keys_, env.authThrottle, id)),
      recorder_(SessionRecorder::into(env.settings.recordDir, id)) {}
Session::~Session() {
  if (countedInLedger_)
    env_.tenants->closeSession(tenant_);
  // No RMA write of the client may land in the ring once it is freed.
  if (conn_ && exposedRing_)
    conn_->withdraw(exposedRing_, exposedRingSize_);
  // What the context prints as it is destroyed has no client to go to; it
  // must not reach the server's stdout either.
  DeviceOutputCapture discarded(&deviceOutput_);
  executor_.reset();
}

flatbuffers::Offset<wire::RemoteMemory>
Session::exposeUploadRing(flatbuffers::FlatBufferBuilder &fbb,
                          uint64_t wanted) {
  uint64_t bytes = std::min(wanted, env_.settings.uploadRingBytes);
  if (!conn_ || !bytes)
    return 0;
  std::string why;
  // A client on this machine maps the ring instead: over shm nothing of
  // the server is exposed to RMA (docs/transport-internals/memory.md, "Memory a
  // peer may write").
  const bool shared = conn_->sameHost();
  const UploadRing *ring = executor_->createUploadRing(bytes, shared, &why);
  if (ring && shared)
    return wire::CreateRemoteMemory(fbb, 0, 0, ring->size(),
                                    fbb.CreateString(ring->fileName()));
  transport::RemoteRegion region;
  if (ring && conn_->exposeForWrite(ring->base(), ring->size(), &region)) {
    exposedRing_ = ring->base();
    exposedRingSize_ = ring->size();
    return wire::CreateRemoteMemory(fbb, region.addr, region.key, ring->size());
  }
  logDebug(
      "session " + std::to_string(id_) + ": no upload ring (" +
      (ring ? "the transport cannot expose it: " + conn_->lastError() : why) +
      "); large uploads travel inline");
  executor_->dropUploadRing();
  return 0;
}

SessionStats Session::stats() const {
  SessionStats s;
  s.batches = metrics_->batches.get();
  s.bytesIn = metrics_->bytesIn.get();
  s.failedBatches = metrics_->failedBatches.get();
  if (executor_) {
    s.commands = executor_->commandsRun();
    s.devices = executor_->devicesUsed();
  }
  return s;
}

void Session::replyError(uint64_t seq, int code, const std::string &message,
                         std::vector<std::vector<uint8_t>> &replies) {
  ErrorData e;
  e.seq = seq;
  e.code = code;
  e.message = message;
  replies.push_back(errorReply(seq, e));
}

Session::Next Session::handle(const uint8_t *data, size_t size,
                              std::vector<std::vector<uint8_t>> &replies) {
  // Whatever the driver prints on this thread now is this session's.
  DeviceOutputCapture capture(&deviceOutput_);
  metrics_->bytesIn.add(size);
  lastBatch_ = {}; // only a replayed Batch fills it
  if (recorder_)
    recorder_->message(data, size);
  // Open before touching anything: the peer may send any bytes at all.
  std::string bad;
  const wire::Message *msg = wire::openMessage(data, size, &bad);
  if (!msg) {
    logDebug("session " + std::to_string(id_) + ": " + bad);
    if (!executor_)
      replies.push_back(helloRefusal(bad + versionHint()));
    else
      replyError(0, kErrInvalidValue, bad, replies);
    return Next::Continue;
  }
  switch (msg->body_type()) {
  case wire::Body::Hello:
    return onHello(msg->body_as_Hello(), data, size, replies);
  case wire::Body::AuthResponse:
    return onAuthResponse(msg->body_as_AuthResponse(), replies);
  case wire::Body::Batch:
    return onBatch(msg->body_as_Batch(), replies);
  default:
    if (!executor_)
      replies.push_back(
          helloRefusal("unexpected message: the first message must be Hello" +
                       versionHint()));
    else
      replyError(0, kErrInvalidValue,
                 "unexpected message type " +
                     std::to_string(int(msg->body_type())) +
                     " from a client (expected Batch)",
                 replies);
    return Next::Continue;
  }
}

std::string Session::peerSource() const {
  return conn_ ? server::peerSource(*conn_) : "an in-process client";
}

Session::Next Session::refuseHello(const std::string &why,
                                   std::vector<std::vector<uint8_t>> &replies,
                                   uint32_t retryMs) {
  closeReason_ = "handshake refused: " + why;
  replies.push_back(helloRefusal(why, retryMs));
  return Next::Close;
}

Session::Next Session::onHello(const void *p, const uint8_t *message,
                               size_t size,
                               std::vector<std::vector<uint8_t>> &replies) {
  const auto *hello = static_cast<const wire::Hello *>(p);
  if (executor_) {
    replyError(0, kErrInvalidValue, "duplicate Hello in session", replies);
    return Next::Continue;
  }
  if (auth_->awaitingResponse())
    return refuseHello("a second Hello instead of the AuthResponse", replies);
  pid_ = hello->client_pid();
  name_ = hello->client_name() ? hello->client_name()->str() : "";
  metrics_->identify(pid_, name_);
  std::string skew = versionSkewRefusal(*hello);
  if (!skew.empty())
    return refuseHello(skew, replies);
  if (!auth_->required())
    return openSession(hello, nullptr, replies);
  // Nothing else is looked at, and nothing about this server is told,
  // before the client proved it holds a key.
  std::vector<uint8_t> challenge;
  std::string why;
  auth_->announceSealing(conn_ && sealWanted(*conn_));
  if (!auth_->challenge(*hello, message, size, peerSource(), &challenge, &why))
    return refuseHello(why, replies);
  replies.push_back(std::move(challenge));
  return Next::Continue;
}

Session::Next
Session::onAuthResponse(const void *p,
                        std::vector<std::vector<uint8_t>> &replies) {
  const auto *response = static_cast<const wire::AuthResponse *>(p);
  if (!response) // the Verifier lets a union's type through without its value
    return refuseHello("AuthResponse without its body", replies);
  if (executor_) {
    replyError(0, kErrInvalidValue,
               "AuthResponse in an open session: the handshake is over",
               replies);
    return Next::Continue;
  }
  auth::Proof serverProof;
  std::string why;
  if (!auth_->verify(*response, &serverProof, &why)) {
    logAt(auth_->failedWhileBackingOff() ? LogLevel::Debug : LogLevel::Info,
          {"auth_failed", id_, auth_->keyId()},
          "session " + std::to_string(id_) + " from " + peerSource() + ": " +
              why);
    return refuseHello(why, replies);
  }
  // Everything from the HelloReply on travels sealed.
  if (auth_->sealing() &&
      !sealConnection(*conn_, *auth_->provenKey(), auth_->transcript(), &why))
    return refuseHello(why, replies);
  logDebug("session " + std::to_string(id_) + " from " + peerSource() +
           ": authenticated with key '" + auth_->keyId() + "'" +
           (auth_->sealing() ? ", connection sealed" : ""));
  return openSession(auth_->hello(), &serverProof, replies);
}

Session::Next Session::openSession(const void *p,
                                   const auth::Proof *serverProof,
                                   std::vector<std::vector<uint8_t>> &replies) {
  const auto *hello = static_cast<const wire::Hello *>(p);
  auto refuse = [&](const std::string &why) {
    return refuseHello(why, replies);
  };
  if (env_.ticket) {
    // Redeemed only by the key (or without keys the source) it was issued
    // to: the client proved its key to this worker again, over a fresh
    // challenge and a Hello that carries the ticket.
    const flatbuffers::Vector<uint8_t> *ticket = hello->ticket();
    std::string why;
    bool retry = false;
    const std::string holder =
        ticketHolder(auth_->required(), auth_->keyId(), peerSource());
    if (!env_.ticket->redeem(ticket ? ticket->data() : nullptr,
                             ticket ? ticket->size() : 0, holder, id_, &why,
                             &retry)) {
      logInfo("session " + std::to_string(id_) + " from " + peerSource() +
              (auth_->required() ? ", key '" + auth_->keyId() + "'" : "") +
              ": " + why);
      return refuseHello(why, replies, retry ? kStartOverMs : 0);
    }
  }
  if (auth_->required()) {
    tenant_ = auth_->keyId();
    metrics_->setTenant(tenant_);
  }
  if (env_.tenants && auth_->required()) {
    std::string why;
    if (!env_.tenants->openSession(tenant_, &why))
      return refuse(why);
    countedInLedger_ = true;
  }
  if (env_.health && env_.health->lost())
    // The reason names another session's kernel: the log has it, this
    // client does not.
    return refuseHello("this server's GPU state was lost in another "
                       "session; rc-server is restarting, retry shortly",
                       replies, kRestartRetryMs);
  std::vector<uint32_t> manifests; // the client's, in the order it named them
  if (hello->manifest_hashes())
    for (uint64_t h : *hello->manifest_hashes()) {
      int i = env_.registry.manifestByHash(h);
      if (i < 0)
        return refuse("manifest " + hexId(h) + " of " + name_ +
                      " is not loaded on this server (start rc-server with "
                      "--manifest <binary>.rcm of this build)");
      if (std::find(manifests.begin(), manifests.end(), uint32_t(i)) ==
          manifests.end())
        manifests.push_back(uint32_t(i));
    }
  if (hello->build_ids())
    for (uint64_t b : *hello->build_ids())
      if (!env_.registry.holdsBuild(b))
        return refuse("build " + hexId(b) + " of " + name_ +
                      " is not loaded on this server (start rc-server with "
                      "the --manifest <binary>.rcm written by the same link "
                      "as the binary)");
  if (recorder_) // a recording replays only beside the manifests it names
    for (uint32_t i : manifests)
      recorder_->manifest(env_.registry.manifest(i));
  std::string error;
  // The log line of an opened session says where its Hello went.
  using Clock = std::chrono::steady_clock;
  auto msSince = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const Clock::time_point contextStart = Clock::now();
  // Device 0's context now (the client will use it); other devices' when
  // the client first selects them.
  std::unique_ptr<DeviceContext> ctx =
      env_.waitingContext ? env_.waitingContext->take() : nullptr;
  const bool contextWaited = ctx != nullptr;
  if (ctx)
    ctx->activate(); // made on another thread
  else
    ctx = env_.backend.createContext(0, &error);
  if (!ctx)
    return refuse("cannot create a device context: " + error);
  SessionSymbols symbols(env_.registry, std::move(manifests));
  executor_ = std::make_unique<Executor>(symbols, env_.backend, std::move(ctx));
  executor_->setMetrics(metrics_.get());
  static const ServerLimits kDefaultLimits;
  const ServerLimits &limits = env_.limits ? *env_.limits : kDefaultLimits;
  Executor::Budgets budgets;
  if (env_.budgets) {
    budgets.reply = &env_.budgets->reply;
    budgets.pinned = &env_.budgets->pinned;
  }
  if (env_.budgetTable && !tenant_.empty()) {
    tenantDevice_ = env_.budgetTable->budget(tenantDeviceBudget(tenant_));
    tenantPinned_ = env_.budgetTable->budget(tenantPinnedBudget(tenant_));
    budgets.tenantDevice = tenantDevice_.get();
    budgets.tenantPinned = tenantPinned_.get();
  }
  executor_->setBounds(limits.replyBytes, limits.sharedHostBytes, budgets);
  std::optional<int> priority;
  if (env_.quotas && !tenant_.empty())
    priority = env_.quotas->of(tenant_).streamPriority;
  executor_->forceStreamPriority(priority);
  executor_->allowHostSharing(conn_ && conn_->sameHost());
  if (conn_)
    executor_->setRemoteWriter(
        [conn = conn_](const uint8_t *data, uint64_t size, uint64_t addr,
                       uint64_t key) {
          return conn->writeRemote(data, size, {addr, key}) ==
                 transport::Status::Ok;
        },
        [conn = conn_] { return readBackPieceBytes(*conn); });

  const double contextMs = msSince(contextStart);
  const Clock::time_point replyStart = Clock::now();
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::DeviceInfo>> infos;
  for (int i = 0; i < env_.backend.deviceCount(); ++i) {
    const DeviceDescription &dev = env_.backend.device(i);
    std::vector<uint8_t> peers(dev.canAccessPeer.begin(),
                               dev.canAccessPeer.end());
    infos.push_back(wire::CreateDeviceInfo(
        fbb, fbb.CreateString(dev.name), dev.totalMem,
        fbb.CreateVector(dev.uuid.data(), dev.uuid.size()),
        fbb.CreateVector(dev.attributes), fbb.CreateString(dev.backend),
        fbb.CreateVector(peers)));
  }
  auto devices = fbb.CreateVector(infos);
  const Clock::time_point attrsStart = Clock::now();
  auto kernelAttrs = helloKernelAttributes(fbb, symbols);
  const double attrsMs = msSince(attrsStart);
  const Clock::time_point ringStart = Clock::now();
  auto ring = exposeUploadRing(fbb, hello->upload_ring_bytes());
  const double ringMs = msSince(ringStart);
  flatbuffers::Offset<wire::ContentCacheOffer> cacheOffer;
  if (env_.cache) {
    // The tenant is the namespace: chunks never cross tenants.
    executor_->setContentCache(env_.cache, tenant_);
    const ContentCache::Options &o = env_.cache->options();
    cacheOffer = wire::CreateContentCacheOffer(fbb, o.chunkBytes, o.minUpload);
  }
  auto proof = serverProof
                   ? fbb.CreateVector(serverProof->data(), serverProof->size())
                   : 0;
  auto release = fbb.CreateString(kReleaseVersion);
  wire::HelloReplyBuilder hr(fbb);
  addServerVersion(hr, release);
  hr.add_ok(true);
  hr.add_session_id(id_);
  hr.add_devices(devices);
  hr.add_kernel_attributes(kernelAttrs);
  hr.add_upload_ring(ring);
  hr.add_auth_proof(proof);
  hr.add_content_cache(cacheOffer);
  if (priority) {
    hr.add_stream_priority_set(true);
    hr.add_stream_priority(*priority);
  }
  replies.push_back(
      finishMessage(fbb, wire::Body::HelloReply, hr.Finish().Union()));
  char timing[160];
  std::snprintf(timing, sizeof timing,
                " (context %.2f ms%s, kernel attributes %.2f ms, upload "
                "ring %.2f ms, reply %.2f ms, %zu bytes)",
                contextMs, contextWaited ? ", made ahead" : "", attrsMs, ringMs,
                msSince(replyStart), replies.back().size());
  logInfo({"session_opened", id_, tenant_},
          "session " + std::to_string(id_) + " (app pid " +
              std::to_string(pid_) + ", " + name_ +
              (tenant_.empty() ? "" : ", tenant '" + tenant_ + "'") +
              ") opened" + timing);
  return Next::Continue;
}

Session::Next Session::onBatch(const void *p,
                               std::vector<std::vector<uint8_t>> &replies) {
  const auto *batch = static_cast<const wire::Batch *>(p);
  if (!executor_) {
    replyError(batch->seq(), kErrInitialization,
               "Batch (seq " + std::to_string(batch->seq()) +
                   ") before Hello: the first message must be Hello",
               replies);
    return Next::Continue;
  }
  metrics_->batches.add(1);
  std::vector<ResultData> results;
  ErrorData error;
  // A part of the replay: the time its commands' types (and `extra`)
  // counted during it.
  auto partNs = [this](std::initializer_list<wire::Command> types,
                       const MetricCounter *extra) {
    uint64_t ns = extra ? extra->get() : 0;
    for (wire::Command t : types)
      ns += metrics_->commandNs[size_t(t)].get();
    return ns;
  };
  using C = wire::Command;
  auto readback = [&] { return partNs({C::MemcpyD2H}, nullptr); };
  auto upload = [&] {
    return partNs({C::MemcpyH2D, C::MemcpyH2DRing, C::SymbolWrite}, nullptr);
  };
  auto launch = [&] { return partNs({C::Launch, C::GraphLaunch}, nullptr); };
  auto sync = [&] {
    return partNs({C::StreamSynchronize}, &metrics_->deferredSyncNs);
  };
  BatchTiming &timing = lastBatch_;
  timing.replyWanted = batch->reply_wanted();
  uint64_t readbackBefore = readback(), uploadBefore = upload(),
           launchBefore = launch(), syncBefore = sync();
  uint64_t replayStart = monotonicNs();
  // One builder per session: its buffer stays allocated (no page faults for
  // a large read-back every token), unless a huge reply made it big.
  if (replyBuilder_.GetSize() > kKeepReplyBuilderBytes)
    replyBuilder_.Reset();
  replyBuilder_.Clear();
  bool ok = executor_->run(*batch, results, &error, replyBuilder_);
  timing.replayNs = monotonicNs() - replayStart;
  timing.readbackNs = readback() - readbackBefore;
  timing.uploadNs = upload() - uploadBefore;
  timing.launchNs = launch() - launchBefore;
  timing.syncNs = sync() - syncBefore;
  metrics_->replayNs.add(timing.replayNs);
  if (!ok) {
    metrics_->failedBatches.add(1);
    // Only a real GPU has process-wide sticky errors.
    if (executor_->stickyError() && env_.health &&
        env_.backend.device(0).backend == "cuda")
      env_.health->markLost("session " + std::to_string(id_) + ": " +
                            executor_->stickyMessage());
    logDebug("session " + std::to_string(id_) + " batch " +
             std::to_string(batch->seq()) + " command " +
             std::to_string(error.index) + ": " + error.message);
  }
  // A failed batch is answered even when nobody waits, so the error reaches
  // the client at its next round trip.
  if (batch->reply_wanted() || !ok) {
    uint64_t buildStart = monotonicNs();
    replies.push_back(batchReply(
        replyBuilder_, batch->seq(), results,
        ok ? std::vector<ErrorData>{} : std::vector<ErrorData>{error},
        executor_->uploadRingReleased(), deviceOutput_.take()));
    timing.buildNs = monotonicNs() - buildStart;
    metrics_->replyNs.add(timing.buildNs);
  }
  if (executor_->saidGoodbye()) {
    closeReason_ = "goodbye";
    return Next::Close;
  }
  return Next::Continue;
}

} // namespace rc::server
