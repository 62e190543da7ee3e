// JSON text for the metrics file: one session's counters, and string
// escaping (client names come from the client and may hold anything).
#ifndef RC_SERVER_METRICS_JSON_H
#define RC_SERVER_METRICS_JSON_H

#include "rc/server/content_cache.h"
#include "rc/server/session_metrics.h"

#include <string>

namespace rc::server {

// Appends `text` as a JSON string literal, quotes included.
void appendJsonString(std::string &out, const std::string &text);

struct SessionHeader {
  uint64_t id = 0;
  bool live = true;
  double seconds = 0;
  std::string closeReason;
};

// Appends
// {"id":..,"state":..,"client":..,"pid":..,...,"commands_by_type":{..}}.
void appendSessionJson(std::string &out, const SessionHeader &header,
                       const SessionMetrics &metrics);

// Appends "content_cache":{"capacity":..,"chunks":..,...},\n: the cache's
// counters at the top of the document (metricsDocument's `server`).
void appendContentCacheJson(std::string &out, const ContentCache::Stats &c);

} // namespace rc::server

#endif
