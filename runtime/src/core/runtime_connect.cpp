// Connection life cycle: lazy connect + handshake at the first call that needs
// the device, the background age flusher, and Goodbye at exit.
#include "core/client_auth.h"
#include "core/connect_deadline.h"
#include "core/device_props.h"
#include "core/runtime.h"
#include "rc/env_reader.h"
#include "rc/version.h"
#include "rc/wire_message.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace rc::rt {

namespace {
std::string programName() {
  std::ifstream f("/proc/self/cmdline");
  std::string arg0;
  std::getline(f, arg0, '\0');
  return arg0;
}
} // namespace

Options Options::fromEnv() {
  EnvReader env;
  Options o;
  const uint64_t day = 86400000, gib = uint64_t(1) << 30, hour = 3600000000;
  o.serverUrl = env.text("RC_SERVER");
  o.authKeyFile = env.text("RC_AUTH_KEY_FILE");
  std::string list = env.text("RC_MANIFEST");
  for (size_t start = 0; start < list.size();) {
    size_t end = std::min(list.find(':', start), list.size());
    if (end > start)
      o.manifests.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  o.stats = env.text("RC_STATS");
  o.connectTimeoutMs =
      int(env.count("RC_CONNECT_TIMEOUT_MS", o.connectTimeoutMs, 1, day));
  o.helloTimeoutMs =
      int(env.count("RC_HELLO_TIMEOUT_MS", o.helloTimeoutMs, 1, day));
  o.batchAgeUs =
      int64_t(env.count("RC_DEV_BATCH_AGE_US", o.batchAgeUs, 0, hour));
  o.flusherThread = env.onOff("RC_DEV_BATCH_FLUSHER", true);
  o.maxCommands =
      size_t(env.count("RC_DEV_BATCH_MAX_COMMANDS", o.maxCommands, 1, 1 << 20));
  o.maxBytes = size_t(env.count("RC_DEV_BATCH_MAX_BYTES", o.maxBytes, 1, gib));
  o.elideSyncs = env.onOff("RC_DEV_SYNC_ELISION", true);
  if (!env.onOff("RC_DEV_RMA", true))
    o.rmaReadbackMin = o.rmaUploadMin = 0;
  o.rmaReadbackMin =
      size_t(env.count("RC_DEV_RMA_READBACK_MIN", o.rmaReadbackMin, 0, gib));
  o.rmaUploadMin =
      size_t(env.count("RC_DEV_RMA_UPLOAD_MIN", o.rmaUploadMin, 0, gib));
  o.sharedHostMin = size_t(
      env.count("RC_DEV_SHARED_HOST_MIN", o.sharedHostMin, 0, 1024 * gib));
  if (!env.onOff("RC_DEV_SHARED_HOST", true))
    o.sharedHostMin = 0;
  std::string cache = env.choice("RC_CACHE", "auto", {"auto", "0", "1"});
  o.cacheUploads = cache == "0"   ? Options::CacheUploads::Never
                   : cache == "1" ? Options::CacheUploads::Always
                                  : Options::CacheUploads::AcrossNetwork;
  o.bulkThreads =
      unsigned(env.count("RC_DEV_BULK_THREADS", o.bulkThreads, 1, 64));
  o.emulateRttUs = int64_t(env.count("RC_DEV_EMULATE_RTT_US", 0, 0, hour));
  o.emulateGbps = env.decimal("RC_DEV_EMULATE_GBPS", 0, 0, 1e6);
  o.settingsError = env.error();
  const std::string &transportError = transport::settingsError();
  if (!transportError.empty())
    o.settingsError += (o.settingsError.empty() ? "" : "; ") + transportError;
  return o;
}

Connector urlConnector(std::string url, std::string keyFile) {
  return [url, keyFile](
             int timeoutMs,
             std::string *error) -> std::unique_ptr<transport::Connection> {
    if (url.empty()) {
      *error = "RC_SERVER is not set";
      return nullptr;
    }
    return connectProvingKey(url, keyFile, timeoutMs, error);
  };
}

int &threadDevice() {
  thread_local int device = 0;
  return device;
}

Runtime::Runtime(Connector connect, ManifestLoader manifests, Options opts)
    : connector_(std::move(connect)), manifestLoader_(std::move(manifests)),
      opts_(opts), transfers_(*this, opts.bulkThreads),
      link_(opts.emulateRttUs, opts.emulateGbps) {}

Runtime::~Runtime() { shutdown(); }

cudaError_t Runtime::ensureConnected() {
  std::lock_guard<std::mutex> lock(mu_);
  return ensureConnectedLocked();
}

cudaError_t Runtime::unavailableLocked() const {
  switch (state_) {
  case State::Connected:
    return cudaSuccess;
  case State::ShutDown:
    return cudaErrorCudartUnloading;
  case State::Lost:
    return cudaErrorDevicesUnavailable;
  default:
    return cudaErrorNoDevice;
  }
}

// The connection, and `device` one of the session's devices.
cudaError_t Runtime::connectedDeviceLocked(int device) {
  if (cudaError_t err = ensureConnectedLocked())
    return err;
  if (device < 0 || size_t(device) >= props_.size())
    return cudaErrorInvalidDevice;
  return cudaSuccess;
}

cudaError_t Runtime::ensureConnectedLocked() {
  if (state_ != State::NotTried)
    return unavailableLocked();
  if (!opts_.settingsError.empty()) {
    state_ = State::Failed;
    // Printed once: later calls fail quietly with the same code.
    std::fprintf(stderr,
                 "remote-clang: refusing the environment: %s "
                 "(docs/environment.md); CUDA calls fail with "
                 "cudaErrorNoDevice until it is fixed.\n",
                 opts_.settingsError.c_str());
    return cudaErrorNoDevice;
  }
  if (manifestLoader_) {
    ScopedNs t(stats_.startPhases.manifestsNs);
    manifestLoader_(index_);
  }
  std::string error;
  ConnectDeadline deadline(opts_.connectTimeoutMs);
  cudaError_t err;
  for (;;) {
    uint32_t retryMs = 0;
    {
      ScopedNs t(stats_.startPhases.connectNs);
      conn_ = connector_(deadline.leftMs(), &error);
    }
    err = conn_ ? handshakeLocked(&error, &retryMs) : cudaErrorNoDevice;
    if (err == cudaSuccess || !retryMs || !deadline.waitToRetry(retryMs))
      break;
    conn_.reset(); // the refusal may pass: start over
  }
  if (err != cudaSuccess && deadline.attempts() > 1)
    error += " (after " + std::to_string(deadline.attempts()) +
             " attempts within RC_CONNECT_TIMEOUT_MS)";
  if (err != cudaSuccess) {
    state_ = State::Failed;
    conn_.reset();
    // Named as the user gave it, where the reason names only the peer.
    if (!opts_.serverUrl.empty() &&
        error.find(opts_.serverUrl) == std::string::npos)
      error = "RC_SERVER=" + opts_.serverUrl + ": " + error;
    // Printed once: later calls fail quietly with the same code.
    std::fprintf(stderr,
                 "remote-clang: no GPU server: %s. Start rc-server on the GPU "
                 "machine (rc-server --listen tcp://0.0.0.0:PORT "
                 "--auth-key-file KEYS --manifest <program>.rcm) and set "
                 "RC_SERVER=tcp://HOST:PORT and RC_AUTH_KEY_FILE=<a copy of "
                 "KEYS> (or RC_SERVER=shm://NAME on the same host); CUDA "
                 "calls fail with cudaErrorNoDevice until then.\n",
                 error.c_str());
    return cudaErrorNoDevice;
  }
  state_ = State::Connected;
  if (opts_.flusherThread)
    flusher_ = std::thread([this] { flusherMain(); });
  return cudaSuccess;
}

bool Runtime::recvHandshakeLocked(std::vector<uint8_t> *msg,
                                  const wire::Message **out,
                                  std::string *error) {
  transport::Status st = conn_->recv(*msg, opts_.helloTimeoutMs);
  if (st != transport::Status::Ok) {
    *error = serverName_ + " did not answer the handshake within " +
             std::to_string(opts_.helloTimeoutMs) + " ms (" +
             transport::statusName(st) + ")";
    return false;
  }
  std::string bad;
  *out = wire::openMessage(msg->data(), msg->size(), &bad);
  if (!*out) {
    *error = serverName_ + " sent a malformed handshake reply (" + bad + ")";
    return false;
  }
  return true;
}

cudaError_t Runtime::handshakeLocked(std::string *error,
                                     uint32_t *retryAfterMs) {
  std::vector<uint8_t> msg;
  const wire::HelloReply *reply = nullptr;
  {
    ScopedNs t(stats_.startPhases.helloNs);
    if (cudaError_t err = helloLocked({}, &msg, &reply, error, retryAfterMs))
      return err;
  }
  if (reply->redirect()) {
    ScopedNs t(stats_.startPhases.redirectNs);
    // rc-server runs the session in a process of its own (docs/server.md,
    // "Fault containment"): say Hello again there, with the ticket.
    std::string from = serverName_;
    std::string url = transport::redirectUrl(reply->redirect()->str(),
                                             opts_.serverUrl, error);
    if (url.empty())
      return cudaErrorNoDevice;
    std::vector<uint8_t> ticket;
    if (reply->ticket())
      ticket.assign(reply->ticket()->begin(), reply->ticket()->end());
    conn_.reset();
    conn_ = connectProvingKey(url, opts_.authKeyFile, opts_.connectTimeoutMs,
                              error);
    if (!conn_) {
      *error = from + " redirected this client to " + url + ": " + *error;
      return cudaErrorNoDevice;
    }
    if (cudaError_t err =
            helloLocked(ticket, &msg, &reply, error, retryAfterMs))
      return err;
    if (reply->redirect()) {
      *error = serverName_ + " redirected this client a second time";
      return cudaErrorNoDevice;
    }
  }
  stats_.startPhases.helloReplyBytes = msg.size();
  ScopedNs replyTime(stats_.startPhases.replyNs);
  if (reply->devices())
    for (const wire::DeviceInfo *d : *reply->devices()) {
      cudaDeviceProp p;
      fillDeviceProp(p, *d);
      props_.push_back(p);
      attrs_.push_back(attributesSeenRemotely(*d));
      canAccessPeer_.emplace_back();
      if (d->can_access_peer())
        canAccessPeer_.back().assign(d->can_access_peer()->begin(),
                                     d->can_access_peer()->end());
    }
  for (auto &row : canAccessPeer_)
    row.resize(props_.size(), false); // an older server sends none
  if (props_.empty()) {
    *error = serverName_ + " has no GPU";
    return cudaErrorNoDevice;
  }
  kernels_.storeAttributesLocked(*reply);
  streams_.forcePriorityLocked(
      reply->stream_priority_set()
          ? std::optional<int>(reply->stream_priority())
          : std::nullopt);
  transfers_.startSessionLocked(*reply);
  return cudaSuccess;
}

cudaError_t Runtime::helloLocked(const std::vector<uint8_t> &ticket,
                                 std::vector<uint8_t> *msg,
                                 const wire::HelloReply **out,
                                 std::string *error, uint32_t *retryAfterMs) {
  ClientAuth auth;
  if (!auth.load(opts_.authKeyFile, error))
    return cudaErrorNoDevice;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<uint64_t> hashes = index_.hashes();
  std::vector<uint8_t> nonce = auth.nonce();
  auto hello = wire::CreateHelloDirect(
      fbb, wire::kProtocolVersion, &hashes, programName().c_str(),
      uint32_t(getpid()), opts_.rmaUploadMin ? opts_.uploadRingBytes : 0,
      index_.builds().empty() ? nullptr : &index_.builds(),
      auth.hasKey() ? auth.keyId().c_str() : nullptr,
      auth.hasKey() ? &nonce : nullptr, ticket.empty() ? nullptr : &ticket,
      kReleaseVersion, kManifestFormat);
  wire::FinishMessageBuffer(
      fbb, wire::CreateMessage(fbb, wire::Body::Hello, hello.Union()));
  serverName_ = conn_->peerDescription();
  if (conn_->send(fbb.GetBufferPointer(), fbb.GetSize()) !=
      transport::Status::Ok) {
    *error = "sending the handshake to " + serverName_ +
             " failed: " + conn_->lastError();
    return cudaErrorNoDevice;
  }
  const wire::Message *m = nullptr;
  if (!recvHandshakeLocked(msg, &m, error))
    return cudaErrorNoDevice;
  if (const wire::AuthChallenge *challenge = m->body_as_AuthChallenge()) {
    std::vector<uint8_t> response;
    if (!auth.answer(*challenge, fbb.GetBufferPointer(), fbb.GetSize(),
                     &response, error)) {
      *error = serverName_ + " refused the session: " + *error;
      return cudaErrorNoDevice;
    }
    if (conn_->send(response.data(), response.size()) !=
        transport::Status::Ok) {
      *error = "sending the handshake to " + serverName_ +
               " failed: " + conn_->lastError();
      return cudaErrorNoDevice;
    }
    if (!auth.sealIfAnnounced(*challenge, *conn_, error)) {
      *error =
          "cannot encrypt the connection to " + serverName_ + ": " + *error;
      return cudaErrorNoDevice;
    }
    if (!recvHandshakeLocked(msg, &m, error))
      return cudaErrorNoDevice;
  }
  const wire::HelloReply *reply = m->body_as_HelloReply();
  if (!reply) {
    *error = serverName_ + " sent a malformed handshake reply (not a "
                           "HelloReply)";
    return cudaErrorNoDevice;
  }
  // A redirect is followed only from a server that proved it holds the key.
  if (!reply->ok() && !reply->redirect()) {
    *error = serverName_ + " refused the session: " +
             (reply->error() ? reply->error()->str() : "no reason given");
    *retryAfterMs = reply->retry_after_ms();
    return cudaErrorNoDevice;
  }
  if (!auth.checkServer(*reply, error) || !auth.checkSealed(*conn_, error)) {
    *error = serverName_ + " is not trusted: " + *error;
    return cudaErrorNoDevice;
  }
  *out = reply;
  return cudaSuccess;
}

void Runtime::loseConnectionLocked(const std::string &why) {
  if (state_ != State::Connected)
    return;
  state_ = State::Lost;
  // The address the user gave first: the peer's own (a worker behind a
  // redirect, the private endpoint's port) is no name they know.
  const std::string server =
      opts_.serverUrl.empty()
          ? serverName_
          : "RC_SERVER=" + opts_.serverUrl + " (" + serverName_ + ")";
  std::fprintf(stderr,
               "remote-clang: lost the connection to the GPU server %s: %s; "
               "CUDA calls fail with cudaErrorDevicesUnavailable from now "
               "on\n",
               server.c_str(), why.c_str());
}

void Runtime::shutdown() {
  stopFlusher();
  std::lock_guard<std::mutex> lock(mu_);
  shutdownLocked();
}

bool Runtime::shutdownAtExit(TrafficStats *stats) {
  auto deadline = std::chrono::steady_clock::now() + kExitLockWait;
  std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
  if (!stopFlusher(deadline) || !lockBefore(lock, deadline))
    return false;
  shutdownLocked();
  *stats = stats_;
  return true;
}

void Runtime::shutdownLocked() {
  if (state_ != State::Connected) {
    state_ = State::ShutDown;
    return;
  }
  flatbuffers::FlatBufferBuilder &fbb = batch_.fbb();
  appendLocked(wire::Command::Goodbye, wire::CreateGoodbye(fbb).Union(),
               {"exit", 0});
  uint64_t seq = 0;
  // Wait briefly so the server has the batch before the process is gone;
  // errors of work nobody synchronized are lost, as with cudart.
  if (sendBatchLocked(true, {}, &seq) == cudaSuccess) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(opts_.connectTimeoutMs);
    while (sinks_.count(seq) && state_ == State::Connected &&
           std::chrono::steady_clock::now() < deadline)
      recvOneLocked(100);
  }
  state_ = State::ShutDown;
  conn_.reset();
}

uint64_t Runtime::messagesSent() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_.messages;
}

uint64_t Runtime::roundTrips() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_.roundTrips;
}

TrafficStats Runtime::trafficStats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

} // namespace rc::rt
