#include "core/traffic_stats.h"

#include <cstdio>
#include <cstring>

namespace rc::rt {

namespace {
double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
      .count();
}
double ratio(uint64_t a, uint64_t b) { return b ? double(a) / double(b) : 0; }
} // namespace

double TrafficStats::commandsPerBatch() const {
  return ratio(commands, messages);
}
double TrafficStats::replyWaitNsPerRoundTrip() const {
  return ratio(replyWaitNs, roundTrips);
}
double TrafficStats::launchNsPerCall() const {
  return ratio(launchNs, launchCalls);
}

void TrafficStats::recordWait(std::chrono::steady_clock::time_point begin,
                              std::chrono::steady_clock::time_point end) {
  auto us = [](std::chrono::steady_clock::duration d) {
    return uint32_t(
        std::chrono::duration_cast<std::chrono::microseconds>(d).count());
  };
  if (waitUs.size() < kMaxWaits) {
    waitUs.push_back(us(end - begin));
    periodUs.push_back(
        lastWaitEnd.time_since_epoch().count() ? us(end - lastWaitEnd) : 0);
  }
  lastWaitEnd = end;
}

namespace {
void appendList(std::string &out, const char *name,
                const std::vector<uint32_t> &values) {
  out += std::string(",\"") + name + "\":[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? "," : "") + std::to_string(values[i]);
  out += "]";
}
} // namespace

std::string TrafficStats::json() const {
  char head[512];
  std::snprintf(
      head, sizeof head,
      "{\"seconds\":%.6f,\"commands\":%llu,\"launches\":%llu,"
      "\"graph_launches\":%llu,\"messages\":%llu,"
      "\"round_trips\":%llu,\"syncs_elided\":%llu,"
      "\"bytes_up\":%llu,\"bytes_up_h2d_data\":%llu,"
      "\"bytes_up_rma\":%llu,\"bytes_up_shared\":%llu,"
      "\"bytes_down\":%llu,\"bytes_down_rma\":%llu,"
      "\"bytes_down_shared\":%llu,\"bytes_up_cached\":%llu,"
      "\"cache_chunks_missed\":%llu,\"cache_uploads_unasked\":%llu,"
      "\"round_trips_by_call\":{",
      secondsSince(start), (unsigned long long)commands,
      (unsigned long long)launches, (unsigned long long)graphLaunches,
      (unsigned long long)messages, (unsigned long long)roundTrips,
      (unsigned long long)syncsElided, (unsigned long long)bytesUp,
      (unsigned long long)bytesUpH2dData, (unsigned long long)bytesUpRma,
      (unsigned long long)bytesUpShared, (unsigned long long)bytesDown,
      (unsigned long long)bytesDownRma, (unsigned long long)bytesDownShared,
      (unsigned long long)bytesUpCached, (unsigned long long)cacheChunksMissed,
      (unsigned long long)cacheUploadsUnasked);
  std::string out = head;
  char timing[512];
  std::snprintf(timing, sizeof timing,
                "},\"commands_per_batch\":%.3f,\"reply_wait_ns\":%llu,"
                "\"reply_wait_ns_per_round_trip\":%.1f,\"launch_calls\":%llu,"
                "\"launch_ns\":%llu,\"launch_ns_per_call\":%.1f",
                commandsPerBatch(), (unsigned long long)replyWaitNs,
                replyWaitNsPerRoundTrip(), (unsigned long long)launchCalls,
                (unsigned long long)launchNs, launchNsPerCall());
  bool first = true;
  for (const auto &[call, n] : roundTripsByCall) {
    // Call names are C identifiers or "(...)" labels: nothing to escape.
    out += (first ? "\"" : ",\"") + call + "\":" + std::to_string(n);
    first = false;
  }
  out += timing;
  const StartPhases &sp = startPhases;
  std::snprintf(
      timing, sizeof timing,
      ",\"start\":{\"manifests_ns\":%llu,\"connect_ns\":%llu,"
      "\"hello_ns\":%llu,\"redirect_ns\":%llu,\"reply_ns\":%llu,"
      "\"hello_reply_bytes\":%llu}",
      (unsigned long long)sp.manifestsNs, (unsigned long long)sp.connectNs,
      (unsigned long long)sp.helloNs, (unsigned long long)sp.redirectNs,
      (unsigned long long)sp.replyNs, (unsigned long long)sp.helloReplyBytes);
  out += timing;
  appendList(out, "wait_us", waitUs);
  appendList(out, "period_us", periodUs);
  return out + "}\n";
}

std::string TrafficStats::summary() const {
  char line[512];
  std::snprintf(line, sizeof line,
                "remote-clang stats: %.3f s, %llu commands (%llu launches, "
                "%llu graph launches) in %llu messages, %llu round trips, "
                "%llu syncs elided, %.3f MB up (%.3f MB of it H2D data; "
                "+%.3f MB by RMA, +%.3f MB from shared memory, %.3f MB from "
                "the server's cache), %.3f MB down "
                "(+%.3f MB by RMA, "
                "+%.3f MB into shared memory)\n",
                secondsSince(start), (unsigned long long)commands,
                (unsigned long long)launches, (unsigned long long)graphLaunches,
                (unsigned long long)messages, (unsigned long long)roundTrips,
                (unsigned long long)syncsElided, bytesUp / 1e6,
                bytesUpH2dData / 1e6, bytesUpRma / 1e6, bytesUpShared / 1e6,
                bytesUpCached / 1e6, bytesDown / 1e6, bytesDownRma / 1e6,
                bytesDownShared / 1e6);
  std::string out = line;
  std::snprintf(line, sizeof line,
                "remote-clang stats: %.1f commands per batch; waited %.3f ms "
                "for replies (%.1f us per round trip); %.2f us per launch "
                "call (%llu calls)\n",
                commandsPerBatch(), replyWaitNs / 1e6,
                replyWaitNsPerRoundTrip() / 1e3, launchNsPerCall() / 1e3,
                (unsigned long long)launchCalls);
  out += line;
  const StartPhases &sp = startPhases;
  std::snprintf(line, sizeof line,
                "remote-clang stats: session start %.3f ms: manifests %.3f, "
                "connect %.3f, Hello %.3f, redirect %.3f, reply %.3f "
                "(%.1f KB)\n",
                (sp.manifestsNs + sp.connectNs + sp.helloNs + sp.redirectNs +
                 sp.replyNs) /
                    1e6,
                sp.manifestsNs / 1e6, sp.connectNs / 1e6, sp.helloNs / 1e6,
                sp.redirectNs / 1e6, sp.replyNs / 1e6,
                sp.helloReplyBytes / 1e3);
  out += line;
  for (const auto &[call, n] : roundTripsByCall)
    out += "remote-clang stats:   " + std::to_string(n) +
           " round trips: " + call + "\n";
  return out;
}

void TrafficStats::reportTo(const char *where) const {
  if (!where || !*where || std::strcmp(where, "0") == 0)
    return;
  if (std::strcmp(where, "1") == 0) {
    std::fputs(summary().c_str(), stderr);
    return;
  }
  FILE *f = std::fopen(where, "w");
  if (!f) {
    std::fprintf(stderr, "remote-clang: RC_STATS: cannot write %s: %s\n", where,
                 std::strerror(errno));
    return;
  }
  std::fputs(json().c_str(), f);
  std::fclose(f);
}

} // namespace rc::rt
