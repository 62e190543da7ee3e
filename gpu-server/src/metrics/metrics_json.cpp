#include "metrics/metrics_json.h"

#include <cstdio>

namespace rc::server {

namespace {

void appendField(std::string &out, const char *name, uint64_t value) {
  out += ",\"";
  out += name;
  out += "\":";
  out += std::to_string(value);
}

// "NONE" for empty command entries; numbers for types this build's schema
// has no name for (cannot happen with kCommandTypeCount from the same
// schema, but costs nothing).
std::string commandName(size_t type) {
  const char *name = wire::EnumNameCommand(wire::Command(type));
  return name && *name ? name : std::to_string(type);
}

void appendSample(std::string &out, const char *name,
                  const RoundTripSample &s) {
  out += ",\"";
  out += name;
  out += "\":{\"gap_ns\":" + std::to_string(s.gapNs);
  appendField(out, "replay_ns", s.replayNs);
  appendField(out, "readback_ns", s.readbackNs);
  appendField(out, "upload_ns", s.uploadNs);
  appendField(out, "launch_ns", s.launchNs);
  appendField(out, "sync_ns", s.syncNs);
  appendField(out, "build_ns", s.buildNs);
  appendField(out, "send_ns", s.sendNs);
  out += "}";
}

// Medians and 90th percentiles over the recent round trips (the batches
// the client waited for): a decode loop's steady state.
void appendRecentRoundTrips(std::string &out,
                            const RoundTripLog::Summary &summary) {
  out += ",\"recent_round_trips\":{\"count\":" + std::to_string(summary.count);
  if (summary.count) {
    appendSample(out, "median", summary.median);
    appendSample(out, "p90", summary.p90);
  }
  out += "}";
}

} // namespace

void appendJsonString(std::string &out, const std::string &text) {
  out += '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += char(c); // UTF-8 passes through; JSON allows it unescaped
    }
  }
  out += '"';
}

void appendSessionJson(std::string &out, const SessionHeader &header,
                       const SessionMetrics &m) {
  out += "{\"id\":" + std::to_string(header.id);
  out += header.live ? ",\"state\":\"live\"" : ",\"state\":\"closed\"";
  out += ",\"client\":";
  appendJsonString(out, m.clientName());
  appendField(out, "pid", m.clientPid());
  std::string tenant = m.tenant();
  if (!tenant.empty()) {
    out += ",\"tenant\":";
    appendJsonString(out, tenant);
  }
  char seconds[48];
  std::snprintf(seconds, sizeof seconds, ",\"seconds\":%.3f", header.seconds);
  out += seconds;
  if (!header.live) {
    out += ",\"close_reason\":";
    appendJsonString(out, header.closeReason);
  }
  uint64_t commands = 0;
  for (const MetricCounter &c : m.commandCount)
    commands += c.get();
  appendField(out, "batches", m.batches.get());
  appendField(out, "failed_batches", m.failedBatches.get());
  appendField(out, "commands", commands);
  appendField(out, "bytes_in", m.bytesIn.get());
  appendField(out, "replies", m.replies.get());
  appendField(out, "bytes_out", m.bytesOut.get());
  appendField(out, "bytes_out_rma", m.bytesOutRma.get());
  appendField(out, "bytes_out_shared", m.bytesOutShared.get());
  appendField(out, "bytes_in_shared", m.bytesInShared.get());
  appendField(out, "bytes_in_cached", m.bytesInCached.get());
  appendField(out, "replay_ns", m.replayNs.get());
  appendField(out, "reply_ns", m.replyNs.get());
  appendField(out, "sync_fences", m.syncFences.get());
  out += ",\"commands_by_type\":{";
  bool first = true;
  for (size_t t = 0; t < kCommandTypeCount; ++t) {
    uint64_t count = m.commandCount[t].get();
    if (!count)
      continue; // only what this client used
    out += first ? "" : ",";
    first = false;
    appendJsonString(out, commandName(t));
    out += ":{\"count\":" + std::to_string(count) +
           ",\"ns\":" + std::to_string(m.commandNs[t].get()) +
           ",\"max_ns\":" + std::to_string(m.commandMaxNs[t].get()) + "}";
  }
  out += "}";
  appendRecentRoundTrips(out, m.recentRoundTrips.summary());
  out += "}";
}

void appendContentCacheJson(std::string &out, const ContentCache::Stats &c) {
  out += "\"content_cache\":{\"capacity\":" + std::to_string(c.capacity);
  appendField(out, "chunks", c.chunks);
  appendField(out, "bytes", c.bytes);
  appendField(out, "hits", c.hits);
  appendField(out, "misses", c.misses);
  appendField(out, "bytes_saved", c.bytesSaved);
  appendField(out, "inserted", c.inserted);
  appendField(out, "rejected", c.rejected);
  appendField(out, "evicted", c.evicted);
  appendField(out, "refused", c.refused);
  appendField(out, "disk_hits", c.diskHits);
  appendField(out, "disk_chunks", c.diskChunks);
  appendField(out, "disk_bytes", c.diskBytes);
  out += "},\n";
}

} // namespace rc::server
