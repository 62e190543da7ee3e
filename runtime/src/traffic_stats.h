// What the runtime sent and waited for: the numbers that decide remote
// speed (round trips above all). RC_STATS=1 prints them to stderr when the
// process exits; RC_STATS=<file> writes them there as JSON (bench/ reads it).
#ifndef RC_RT_TRAFFIC_STATS_H
#define RC_RT_TRAFFIC_STATS_H

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace rc::rt {

struct TrafficStats {
  uint64_t commands = 0;      // appended to batches
  uint64_t launches = 0;      // kernel launches among them
  uint64_t graphLaunches = 0; // cudaGraphLaunch among them
  uint64_t messages = 0;      // batches sent
  uint64_t roundTrips = 0;    // batches whose reply the caller waited for
  uint64_t syncsElided = 0;   // syncs sent as barriers, not waited for
  uint64_t bytesUp = 0;       // client -> server
  uint64_t bytesDown = 0;     // server -> client
  // Round trips by the API call of the batch's last command: which calls
  // make the application wait (e.g. cudaStreamSynchronize, cudaMemcpy D2H).
  std::map<std::string, uint64_t> roundTripsByCall;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  // "1": a summary on stderr; any other non-empty value: a JSON file.
  void reportTo(const char *where) const;
  std::string json() const;
  std::string summary() const;
};

} // namespace rc::rt

#endif
