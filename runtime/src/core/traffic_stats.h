// What the runtime sent and waited for: the numbers that decide remote
// speed (round trips above all). RC_STATS=1 prints them to stderr when the
// process exits; RC_STATS=<file> writes them there as JSON (bench/ reads it).
#ifndef RC_RT_TRAFFIC_STATS_H
#define RC_RT_TRAFFIC_STATS_H

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rc::rt {

struct TrafficStats {
  uint64_t commands = 0;      // appended to batches
  uint64_t launches = 0;      // kernel launches among them
  uint64_t graphLaunches = 0; // cudaGraphLaunch among them
  uint64_t messages = 0;      // batches sent
  uint64_t roundTrips = 0;    // batches whose reply the caller waited for
  uint64_t syncsElided = 0;   // syncs sent as barriers, not waited for
  uint64_t bytesUp = 0;       // client -> server
  // Of bytesUp: the application's own host-to-device data (cudaMemcpy and
  // cudaMemcpyAsync H2D, inline in the batch). The rest is the protocol.
  uint64_t bytesUpH2dData = 0;
  // Host-to-device data placed in the server's upload ring: by RMA, or
  // over shm stored into the ring's shared file (not part of bytesUp, which
  // counts messages).
  uint64_t bytesUpRma = 0;
  uint64_t bytesDown = 0; // server -> client
  // Read-back bytes the server wrote into the application's memory by RMA
  // (not part of bytesDown, which counts messages).
  uint64_t bytesDownRma = 0;
  // Read-back bytes the server's GPU wrote straight into cudaMallocHost
  // memory it shares with this process (same machine; in no other count).
  uint64_t bytesDownShared = 0;
  uint64_t bytesUpShared = 0; // uploads the server read from shared pages
  // Uploads the server's content cache held (named by hash, not sent) and
  // chunks sent with their bytes for it to keep: it lacked them, or the
  // upload did not ask (docs/server-internals/content-cache.md, "Content
  // cache").
  uint64_t bytesUpCached = 0;
  uint64_t cacheChunksMissed = 0;
  // Uploads sent with their hashes but without asking first: the server's
  // cache had missed every chunk of the session's latest uploads.
  uint64_t cacheUploadsUnasked = 0;
  // Where the client's own time goes: blocked until replies came,
  // and inside launch calls (argument packing, batching, sending a full
  // batch). Per round trip / per launch: divide, as json() does.
  uint64_t replyWaitNs = 0;
  uint64_t launchCalls = 0; // launch API calls (captured ones included)
  uint64_t launchNs = 0;
  // Round trips by the API call of the batch's last command: which calls
  // make the application wait (e.g. cudaStreamSynchronize, cudaMemcpy D2H).
  std::map<std::string, uint64_t> roundTripsByCall;
  // Every reply wait, in order (the first kMaxWaits): how long it blocked
  // and the time since the previous wait ended, i.e. one decode token's
  // period in a generation loop. RC_STATS=<file> lists them, so a profile
  // can tell the steady state from warm-up and spikes.
  static constexpr size_t kMaxWaits = 1 << 18;
  std::vector<uint32_t> waitUs, periodUs;
  std::chrono::steady_clock::time_point lastWaitEnd{};
  void recordWait(std::chrono::steady_clock::time_point begin,
                  std::chrono::steady_clock::time_point end);
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  // Where the session's start went, in the order the first CUDA call pays
  // for it: reading the manifests, reaching the server (transport connect,
  // key proof), the Hello round trip (the server opens the session), with
  // rc-server --isolation process the worker's connect and Hello, and
  // taking the reply in (devices, kernel attributes, upload ring).
  struct StartPhases {
    uint64_t manifestsNs = 0;
    uint64_t connectNs = 0;
    uint64_t helloNs = 0;
    uint64_t redirectNs = 0;
    uint64_t replyNs = 0;
    uint64_t helloReplyBytes = 0; // the last HelloReply's size
  } startPhases;

  // "1": a summary on stderr; any other non-empty value: a JSON file.
  void reportTo(const char *where) const;
  double commandsPerBatch() const;
  double replyWaitNsPerRoundTrip() const;
  double launchNsPerCall() const;
  std::string json() const;
  std::string summary() const;
};

// Adds the time until the end of its scope to a nanosecond counter (which
// the caller's lock protects).
class ScopedNs {
public:
  explicit ScopedNs(uint64_t &sink)
      : sink_(sink), start_(std::chrono::steady_clock::now()) {}
  ~ScopedNs() {
    sink_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now() - start_)
                          .count());
  }
  ScopedNs(const ScopedNs &) = delete;
  ScopedNs &operator=(const ScopedNs &) = delete;

private:
  uint64_t &sink_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace rc::rt

#endif
