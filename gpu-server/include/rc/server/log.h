// rc-server's log: one line per event on stderr, whole lines never
// interleaved, with stable fields (docs/metrics.md, "Logs"):
//   time=2026-01-02T03:04:05.678Z level=info proc=rc-server pid=42
//   event=session_closed session=7 tenant=alice msg="..."
// or the same as one JSON object a line (--log-format json). `time` is
// UTC, `proc` the log name (a worker's: "rc-server worker PID"), `event`
// a fixed word per kind of event (docs/metrics.md lists them), `session`
// and `tenant` present when the event is about one, `msg` the sentence
// for people.
#ifndef RC_SERVER_LOG_H
#define RC_SERVER_LOG_H

#include <cstdint>
#include <string>
#include <utility>

namespace rc::server {

enum class LogLevel { Quiet = 0, Info = 1, Debug = 2 };
enum class LogFormat { KeyValue, Json };

void setLogLevel(LogLevel level);
LogLevel logLevel();
bool parseLogLevel(const std::string &text, LogLevel *out);
void setLogFormat(LogFormat format);
bool parseLogFormat(const std::string &text, LogFormat *out);
// What each line's proc field holds ("rc-server"; a worker process of
// --isolation process: "rc-server worker PID").
void setLogName(const std::string &name);

// What an event is about. `event` is one word (a-z, _); a session id of
// 0 and an empty tenant are left out of the line.
struct LogEvent {
  LogEvent(const char *event = "note", uint64_t session = 0,
           std::string tenant = "")
      : event(event), session(session), tenant(std::move(tenant)) {}
  const char *event;
  uint64_t session;
  std::string tenant;
};

// The line for one event (no newline): what log() prints, exposed for
// tests. `unixMs`: the event's time.
std::string formatLogLine(LogFormat format, LogLevel level,
                          const LogEvent &what, const std::string &message,
                          uint64_t unixMs);

// Logs one event at `level` (errors are printed even when quiet: they
// explain why something stopped).
void logAt(LogLevel level, const LogEvent &what, const std::string &message);
void logInfo(const LogEvent &what, const std::string &message);
void logDebug(const LogEvent &what, const std::string &message);
void logError(const LogEvent &what, const std::string &message);
// Events of no particular kind (event=note).
void logInfo(const std::string &message);
void logDebug(const std::string &message);
void logError(const std::string &message);

} // namespace rc::server

#endif
